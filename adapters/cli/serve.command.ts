import cluster from 'node:cluster';
import { isClusterWorker, runPrimary, workerSlot } from '../main/cluster.js';
import { loadConfig } from '../main/config.js';
import { createLogger, settleLog } from '../main/logger.js';
import { requireNativeBindings } from '../main/native-bindings.js';
import { startServer } from '../main/server.js';

/**
 * At exit, how long log lines still queued for a slow stdout reader may delay it, after the drain (at most
 * 10 s); a reader that is gone delays nothing (docs/operations.md, "Logs").
 */
export const LOG_SETTLE_MS = 1000;

/**
 * Runs the server until SIGTERM or SIGINT, then drains requests in flight and closes the stores. With
 * VAULT_WORKERS > 1 this process becomes the primary of that many worker processes (adapters/main/cluster.ts).
 */
export async function serve(): Promise<void> {
  const config = loadConfig();
  requireNativeBindings();
  if (config.workers > 1 && cluster.isPrimary) {
    const logger = createLogger(config.logLevel);
    const code = await runPrimary(config, logger);
    await settleLog(logger, LOG_SETTLE_MS);
    process.exit(code);
  }
  const worker = isClusterWorker() ? { slot: workerSlot() } : undefined;
  const server = await startServer(config, { worker });
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    server.logger.info({ signal }, 'shutting down');
    const exit = (code: number) => settleLog(server.logger, LOG_SETTLE_MS).then(() => process.exit(code));
    server.close().then(
      () => exit(0),
      (error: unknown) => {
        server.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'shutdown failed');
        return exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // A worker whose primary is gone gets no more connections: it drains and stops rather than linger.
  if (worker) process.on('disconnect', () => stop('SIGTERM'));
}
