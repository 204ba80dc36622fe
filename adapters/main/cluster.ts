import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { AppConfig } from './config.js';
import type { Logger } from './logger.js';
import { withServerNodeFlags } from './node-flags.js';
import { vaultFromConfig } from './vault-from-config.js';

/*
 * VAULT_WORKERS > 1: one primary process and that many workers (node:cluster), each a whole server on the
 * same port, the same data directory and database. The primary serves nothing itself: it prepares the
 * stores once (migrations, the local master key: two workers creating it at once would make two keys),
 * starts the workers, restarts one that dies, answers /metrics for all of them together, and on SIGTERM
 * or SIGINT lets each drain and exits when they have.
 */

/** The env variable the primary gives each worker: its slot, 0 to workers − 1. */
const SLOT_ENV = 'VAULT_WORKER_SLOT';
const METRICS_REQUEST = 'wallet-vault:metrics-request';
const METRICS_REPLY = 'wallet-vault:metrics-reply';
const RESTART_DELAY_MS = 1000;
const METRICS_TIMEOUT_MS = 5000;

interface MetricsRequest {
  readonly type: typeof METRICS_REQUEST;
  readonly id: number;
}
interface MetricsReply {
  readonly type: typeof METRICS_REPLY;
  readonly id: number;
  readonly contentType?: string;
  readonly text?: string;
  readonly error?: string;
}

/** True in a worker process started by runPrimary. */
export const isClusterWorker = (): boolean => cluster.isWorker && process.env[SLOT_ENV] !== undefined;

/** This worker's slot; only slot 0 runs the background jobs (purge, sweeps), so each runs once per server. */
export const workerSlot = (): number => Number(process.env[SLOT_ENV] ?? 0);

/**
 * Runs the primary until its workers have stopped; resolves with the exit code. A worker that dies is
 * restarted in its slot after a second; one that dies before it ever listened stops the whole server
 * (a configuration or store problem would only repeat).
 */
export async function runPrimary(config: AppConfig, logger: Logger): Promise<number> {
  // The same start-up checks a single process makes, once: bad settings fail here with the same message.
  await (await vaultFromConfig(config, { logger, jobs: false })).close();

  const aggregator = new AggregatorRegistry();
  const slots = new Map<Worker, number>();
  const listened = new Set<number>();
  let stopping = false;
  let exitCode = 0;
  let settle!: (code: number) => void;
  const done = new Promise<number>((resolve) => (settle = resolve));

  // Workers run with the server's node flags even where the primary was started without them.
  cluster.setupPrimary({ execArgv: withServerNodeFlags(process.execArgv) });
  const start = (slot: number) => {
    const worker = cluster.fork({ [SLOT_ENV]: String(slot) });
    slots.set(worker, slot);
    worker.on('listening', () => {
      if (listened.has(slot)) {
        logger.info({ slot }, 'restarted worker listening');
        return;
      }
      listened.add(slot);
      if (listened.size === config.workers) logger.info({ workers: config.workers, pid: process.pid }, 'wallet-vault workers listening');
    });
    worker.on('message', (message: MetricsRequest) => {
      if (message?.type !== METRICS_REQUEST) return;
      aggregator.clusterMetrics().then(
        (text) => worker.send({ type: METRICS_REPLY, id: message.id, contentType: aggregator.contentType, text } satisfies MetricsReply),
        (error: unknown) => worker.send({ type: METRICS_REPLY, id: message.id, error: String(error) } satisfies MetricsReply),
      );
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.get(worker)!;
    slots.delete(worker);
    if (stopping) {
      // Killed by our SIGTERM before its own handler was installed: it was still starting, nothing was lost.
      if (code !== 0 && signal !== 'SIGTERM') exitCode = 1;
      if (slots.size === 0) settle(exitCode);
      return;
    }
    if (!listened.has(slot)) {
      logger.error({ slot, code, signal }, 'a worker stopped before it listened; stopping the server');
      exitCode = 1;
      stop();
      return;
    }
    logger.error({ slot, code, signal }, 'a worker stopped unexpectedly; restarting it');
    setTimeout(() => (stopping ? undefined : start(slot)), RESTART_DELAY_MS);
  });

  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const worker of slots.keys()) worker.process.kill('SIGTERM');
    if (slots.size === 0) settle(exitCode); // every worker was already gone (awaiting its restart)
  };
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down workers');
    stop();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  for (let slot = 0; slot < config.workers; slot++) start(slot);
  return done;
}

/**
 * In a worker: the registry joins the primary's aggregation, and the returned function gives /metrics the
 * whole server's metrics (every worker's, summed by prom-client's cluster aggregator), not this worker's.
 */
export function clusterMetricsExposition(registry: Registry): () => Promise<{ contentType: string; text: string }> {
  new AggregatorRegistry(); // registers the listener that answers the primary's requests
  AggregatorRegistry.setRegistries(registry);
  let nextId = 0;
  const pending = new Map<number, (reply: MetricsReply) => void>();
  process.on('message', (message: MetricsReply) => {
    if (message?.type === METRICS_REPLY) pending.get(message.id)?.(message);
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('the primary process did not answer for the metrics'));
      }, METRICS_TIMEOUT_MS);
      pending.set(id, (reply) => {
        clearTimeout(timer);
        pending.delete(id);
        if (reply.error !== undefined || reply.text === undefined) reject(new Error(`metrics aggregation failed: ${reply.error}`));
        else resolve({ contentType: reply.contentType ?? registry.contentType, text: reply.text });
      });
      process.send!({ type: METRICS_REQUEST, id } satisfies MetricsRequest);
    });
}
