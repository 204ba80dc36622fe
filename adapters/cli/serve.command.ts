import cluster from 'node:cluster';
import { isClusterWorker, runPrimary, workerSlot } from '../main/cluster.js';
import { loadConfig } from '../main/config.js';
import { createLogger } from '../main/logger.js';
import { requireNativeBindings } from '../main/native-bindings.js';
import { startServer } from '../main/server.js';

/**
 * Runs the server until SIGTERM or SIGINT, then drains requests in flight and closes the stores. With
 * VAULT_WORKERS > 1 this process becomes the primary of that many worker processes (adapters/main/cluster.ts).
 */
export async function serve(): Promise<void> {
  const config = loadConfig();
  requireNativeBindings();
  if (config.workers > 1 && cluster.isPrimary) {
    process.exit(await runPrimary(config, createLogger(config.logLevel)));
  }
  const worker = isClusterWorker() ? { slot: workerSlot() } : undefined;
  const server = await startServer(config, { worker });
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
  // A worker whose primary is gone gets no more connections: it drains and stops rather than linger.
  if (worker) process.on('disconnect', () => stop('SIGTERM'));
}
