import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import type { Container } from 'inversify';
import { Authenticate } from '../../src/application/authenticate.use-case.js';
import { CreateWallet } from '../../src/application/create-wallet.use-case.js';
import { ExpireWallet } from '../../src/application/expire-wallet.use-case.js';
import { GetSubmission } from '../../src/application/get-submission.use-case.js';
import { GetVaultStatus } from '../../src/application/get-vault-status.use-case.js';
import { GetWallet } from '../../src/application/get-wallet.use-case.js';
import { ListWallets } from '../../src/application/list-wallets.use-case.js';
import { PurgeExpiredIdempotency } from '../../src/application/purge-expired-idempotency.use-case.js';
import { PurgeExpiredWallets } from '../../src/application/purge-expired-wallets.use-case.js';
import { RecordSubmission } from '../../src/application/record-submission.use-case.js';
import { RenameWallet } from '../../src/application/rename-wallet.use-case.js';
import { SignCall } from '../../src/application/sign-call.use-case.js';
import { SweepOrphanKeys } from '../../src/application/sweep-orphan-keys.use-case.js';
import { UnexpireWallet } from '../../src/application/unexpire-wallet.use-case.js';
import { VerifyAuthSignature } from '../../src/application/verify-auth-signature.use-case.js';
import { ErrorCode } from '../../src/domain/errors.js';
import type { Clock } from '../../src/ports/clock.port.js';
import { JOB_LOCK } from '../../src/ports/job-lock.port.js';
import type { KeyStore } from '../../src/ports/key-store.port.js';
import { createHttpApp, type HttpDeps } from '../http/http-app.js';
import { answerClientError } from '../http/client-error.js';
import { observeRequests } from '../http/observed-requests.js';
import { RateLimiter } from '../http/rate-limiter.js';
import { withSignFastPath } from '../http/sign-fast-path.js';
import { MeteredKeyStore } from '../metrics/metered.key-store.js';
import { PrometheusMetrics } from '../metrics/prometheus.metrics.js';
import { clusterMetricsExposition } from './cluster.js';
import type { AppConfig } from './config.js';
import { buildContainer } from './container.js';
import { createLogger, type Logger } from './logger.js';
import { PurgeScheduler } from './purge-scheduler.js';
import { readinessOf } from './readiness.js';
import { openKeyStores, openPersistence } from './stores.js';
import { detectVersion } from './version.js';

export interface RunningServer {
  /** `http://host:port` actually bound (PORT=0 picks a free port). */
  readonly url: string;
  readonly port: number;
  readonly container: Container;
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

export async function startServer(config: AppConfig, options: StartOptions = {}): Promise<RunningServer> {
  const baseLogger = options.logger ?? createLogger(config.logLevel);
  const logger = options.worker ? baseLogger.child({ worker: options.worker.slot }) : baseLogger;
  const version = config.version ?? detectVersion();
  const persistence = await openPersistence(config, logger);
  let keyStores: KeyStore[] = [];
  try {
    keyStores = await openKeyStores(config, logger);
  } catch (error) {
    await persistence.close();
    throw error;
  }
  const metrics = new PrometheusMetrics({ version });
  // Every store is timed by the same decorator; the stores themselves carry no metrics code.
  keyStores = keyStores.map((s) => new MeteredKeyStore(s, metrics));
  const container = buildContainer({ config, version, ...persistence, keyStores, clock: options.clock });

  const readiness = readinessOf(
    [
      { name: 'database', code: ErrorCode.DATABASE_UNAVAILABLE, ping: () => persistence.repository.ping() },
      ...keyStores.map((s) => ({ name: `key store ${s.name}`, code: ErrorCode.KEYSTORE_UNAVAILABLE, ping: () => s.ping() })),
    ],
    Math.min(config.outboundTimeoutMs, 2000),
  );
  const deps: HttpDeps = {
    authenticate: container.get(Authenticate),
    createWallet: container.get(CreateWallet),
    listWallets: container.get(ListWallets),
    getWallet: container.get(GetWallet),
    renameWallet: container.get(RenameWallet),
    expireWallet: container.get(ExpireWallet),
    unexpireWallet: container.get(UnexpireWallet),
    getVaultStatus: container.get(GetVaultStatus),
    signCall: container.get(SignCall),
    verifyAuthSignature: container.get(VerifyAuthSignature),
    recordSubmission: container.get(RecordSubmission),
    getSubmission: container.get(GetSubmission),
    readiness,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    metrics: options.worker
      ? { exposition: clusterMetricsExposition(metrics.registry), observeRateLimited: () => metrics.observeRateLimited() }
      : metrics,
    rateLimiter: config.rateLimitPerMinute === undefined ? undefined : new RateLimiter(config.rateLimitPerMinute),
    argsBounds: config.argsBounds,
    apiDocs: config.apiDocs,
  };

  const scheduler = new PurgeScheduler(
    {
      purge: container.get(PurgeExpiredWallets),
      purgeIdempotency: container.get(PurgeExpiredIdempotency),
      sweep: container.get(SweepOrphanKeys),
    },
    container.get(JOB_LOCK),
    config.purgeIntervalMs,
    logger,
    metrics,
  );

  const server = http.createServer(
    { maxHeaderSize: config.maxHeaderBytes },
    observeRequests(withSignFastPath(createHttpApp(deps), deps), { logger, metrics }),
  );
  server.keepAliveTimeout = 65_000; // longer than common load-balancer idle timeouts
  // A client that trickles its headers or body cannot hold a connection for node's default five minutes.
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket, config.maxHeaderBytes));
  server.listen(config.port, config.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    await Promise.all([persistence.close(), ...keyStores.map((s) => s.close())]);
    throw error;
  }
  if (!options.worker || options.worker.slot === 0) scheduler.start();
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  logger.info({ url, version, dataDir: config.dataDir, database: persistence.description, keyStore: config.keyStore }, 'wallet-vault listening');

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
      await scheduler.stop();
      await Promise.all(keyStores.map((s) => s.close()));
      await persistence.close();
      logger.info('wallet-vault stopped');
    })());

  return { url, port, container, logger, metrics, purgeNow: () => scheduler.runOnce(), close };
}
