import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import type { Container } from 'inversify';
import type { Clock } from '../../src/ports/clock.port.js';
import { answerClientError } from '../http/client-error.js';
import { observeRequests } from '../http/observed-requests.js';
import { createHttpPipeline } from '../http/pipeline.js';
import { httpDepsOf } from './vault-router.js';
import { MeteredKeyStore } from '../metrics/metered.key-store.js';
import { PrometheusMetrics } from '../metrics/prometheus.metrics.js';
import { GovernanceVerifier } from '../../src/application/governance/governance-verifier.js';
import { MissingDriverError } from '../optional-driver.js';
import { clusterMetricsExposition } from './cluster.js';
import { ConfigError, type AppConfig } from './config.js';
import type { Vault } from './create-vault.js';
import { createLogger, logDestinationOf, type Logger } from './logger.js';
import { vaultFromConfig } from './vault-from-config.js';
import { cpuBudget, signingThreadPays } from '../system/cpu-budget.js';
import { detectVersion } from './version.js';

export interface RunningServer {
  /** `http://host:port` actually bound (PORT=0 picks a free port). */
  readonly url: string;
  readonly port: number;
  readonly container: Container;
  readonly vault: Vault;
  readonly logger: Logger;
  readonly metrics: PrometheusMetrics;
  /** Runs one purge, idempotency clean-up and orphan sweep now (the scheduler also runs them periodically). */
  purgeNow(): Promise<void>;
  /** Stops accepting, finishes requests in flight, then closes the stores. Idempotent. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Tests substitute a clock they can move. */
  readonly clock?: Clock;
  readonly logger?: Logger;
  /**
   * Set in a worker of VAULT_WORKERS > 1: its log lines name the slot, /metrics answers for every worker
   * together, and only slot 0 runs the background jobs (the SQLite job lock is per process).
   */
  readonly worker?: { readonly slot: number };
}

const DRAIN_TIMEOUT_MS = 10_000;
/** The documented bound on receiving a request's headers (docs/configuration.md). */
const HEADERS_TIMEOUT_MS = 20_000;
/**
 * How often node checks connections against headersTimeout and requestTimeout. Its default (30 s) let a
 * client trickling headers hold a connection for up to 50 s despite the 20 s bound.
 */
const CONNECTIONS_CHECK_MS = 1000;

export async function startServer(config: AppConfig, options: StartOptions = {}): Promise<RunningServer> {
  const baseLogger = options.logger ?? createLogger(config.logLevel);
  const logger = options.worker ? baseLogger.child({ worker: options.worker.slot }) : baseLogger;
  const version = config.version ?? detectVersion();
  const metrics = new PrometheusMetrics({ version });
  const logDestination = logDestinationOf(baseLogger);
  if (logDestination) metrics.countDroppedLogLines(() => logDestination.dropped);
  const vault = await vaultFromConfig(config, {
    logger,
    clock: options.clock,
    // Every store is timed by the same decorator; the stores themselves carry no metrics code.
    decorateKeyStore: (s) => new MeteredKeyStore(s, metrics),
    // Requests a remote store's client retried (throttled or briefly unavailable): wallet_vault_keystore_retries_total.
    keyStoreRetried: (store, reason) => metrics.observeKeyStoreRetry(store, reason),
    // Only slot 0 runs the background jobs (the SQLite job lock is per process).
    jobs: options.worker && options.worker.slot !== 0 ? false : { intervalMs: config.purgeIntervalMs },
    jobMetrics: metrics,
    // Refused authentications by reason, besides the audit summary.
    authRefused: metrics,
    webhookMetrics: metrics,
    // Votes a release found without a valid signature: wallet_vault_approval_votes_invalid_total.
    invalidVotes: metrics,
    simulationMetrics: metrics,
    auditStreamMetrics: metrics,
  });
  await warnOfGovernance(vault, logger);
  let redis: Awaited<ReturnType<typeof openRateLimitRedis>> | undefined;
  let deps: ReturnType<typeof httpDepsOf>;
  try {
    redis = config.rateLimitStore === 'redis' ? await openRateLimitRedis(config, logger) : undefined;
    deps = httpDepsOf(vault, {
      logger,
      bodyLimitBytes: config.bodyLimitBytes,
      metrics: options.worker
        ? {
            exposition: clusterMetricsExposition(metrics.registry),
            observeRateLimited: () => metrics.observeRateLimited(),
            observeAddressRateLimited: () => metrics.observeAddressRateLimited(),
            observeRateLimitStoreFailed: () => metrics.observeRateLimitStoreFailed(),
            observeRateLimitStoreSkipped: (seconds: number) => metrics.observeRateLimitStoreSkipped(seconds),
          }
        : metrics,
      rateLimitPerMinute: config.rateLimitPerMinute,
      rateLimitStoreTimeoutMs: config.rateLimitStoreTimeoutMs,
      // SQLite: in process (the configuration refused any other store for it).
      rateLimitStore: redis ? { redis } : config.rateLimitStore === 'database' ? 'database' : 'process',
      addressRateLimitPerMinute: config.addressRateLimitPerMinute,
      trustedProxies: config.trustedProxies,
      metricsToken: config.metricsToken,
      argsBounds: config.argsBounds,
    });
  } catch (error) {
    redis?.disconnect();
    await vault.close();
    throw error;
  }

  // A vault edited in the database is counted within the check's 5 s, whether or not anything signs with it.
  metrics.countUnverifiedGovernance(async () => (await vault.container.get(GovernanceVerifier).recentHealth()).unverified.length);
  // Every request goes through the one pipeline, with node:http alone (no framework on this path).
  const pipeline = createHttpPipeline(deps, { health: true, apiDocs: { ui: config.apiDocs } });
  const server = http.createServer(
    { maxHeaderSize: config.maxHeaderBytes, connectionsCheckingInterval: CONNECTIONS_CHECK_MS },
    observeRequests(pipeline, { logger, metrics }),
  );
  server.keepAliveTimeout = 65_000; // longer than common load-balancer idle timeouts
  // A client that trickles its headers or body cannot hold a connection for node's default five minutes.
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = 60_000;
  // Past the cap node closes each new connection as it arrives (docs/operations.md).
  server.maxConnections = config.maxConnections;
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket, config.maxHeaderBytes));
  server.listen(config.port, config.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    redis?.disconnect();
    await vault.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  // What the process was given and what was sized from it, so an operator reading a container's log sees a
  // half-core quota as the service saw it (the local stores' signing thread is off at one core or less).
  const cpu = cpuBudget();
  const signingThread = config.signingThread ?? signingThreadPays(cpu);
  metrics.reportCpuBudget(cpu, signingThread);
  logger.info(
    { url, version, dataDir: config.dataDir, database: vault.database, keyStore: config.keyStore, cpu: { cores: cpu.cores, cpus: cpu.parallelism, quota: cpu.quota?.source ?? null }, signingThread },
    'wallet-vault listening',
  );

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A keep-alive connection whose request finishes during the drain turns idle; close it then too,
      // rather than wait for the client to drop it (a pooled client may hold it for minutes).
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const force = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
      await drained;
      clearInterval(sweep);
      clearTimeout(force);
      await vault.close();
      await redis?.quit().catch(() => redis?.disconnect());
      logger.info('wallet-vault stopped');
    })());

  return { url, port, container: vault.container, vault, logger, metrics, purgeNow: () => vault.runJobsOnce(), close };
}

/** The Redis client of VAULT_REDIS_URL; without the optional package ioredis, a configuration error naming it. */
async function openRateLimitRedis(config: AppConfig, logger: Logger) {
  const { openRedis } = await import('../rate-limit/ioredis.js');
  return openRedis(config.redisUrl!, config.outboundTimeoutMs, logger).catch((error: unknown) => {
    throw error instanceof MissingDriverError ? new ConfigError(`${error.message} (VAULT_RATE_LIMIT_STORE is redis)`) : error;
  });
}

/**
 * Verifies every governed and pinned vault once at start: a governed vault the configuration does not pin
 * is a warning (a database writer could remove its governance: docs/governance.md says to pin it), one
 * that does not verify an error (it signs nothing until repaired). Never stops the server: the other
 * vaults go on.
 */
async function warnOfGovernance(vault: Awaited<ReturnType<typeof vaultFromConfig>>, logger: { warn(o: object, m?: string): void; error(o: object, m?: string): void }): Promise<void> {
  try {
    const health = await vault.container.get(GovernanceVerifier).checkAll();
    for (const v of health.unpinned) logger.warn({ vault: v }, `vault ${v} is governed but VAULT_GOVERNANCE_PINS does not pin it: a database writer could remove its governance (wallet-vault governance show --vault ${v} prints the pin)`);
    for (const u of health.unverified) logger.error({ vault: u.vault, problem: u.problem }, `vault ${u.vault}'s governance does not verify; it signs nothing: ${u.problem}`);
  } catch (error) {
    logger.warn({ err: (error as Error).message }, 'governance could not be checked at start');
  }
}
