import { loadConfig } from '../main/config.js';
import { startServer } from '../main/server.js';

/** Runs the server until SIGTERM or SIGINT, then drains requests in flight and closes the stores. */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const server = await startServer(config);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    server.logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
