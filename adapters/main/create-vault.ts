import { ExpireApprovals } from '../../src/application/approvals/expire-approvals.use-case.js';
import 'reflect-metadata';
import { Container } from 'inversify';
import { PurgeExpiredIdempotency } from '../../src/application/shared/purge-expired-idempotency.use-case.js';
import { PurgeExpiredWallets } from '../../src/application/wallets/purge-expired-wallets.use-case.js';
import { RefusedAuthSummary } from '../../src/application/access/refused-auth-summary.js';
import { CHAIN_IDS, CHAINS } from '../../src/domain/chains.js';
import { DEFAULT_CHALLENGE_BOUNDS } from '../../src/application/console/sign-in-challenges.js';
import { SweepOrphanKeys } from '../../src/application/keys/sweep-orphan-keys.use-case.js';
import { AuditCheckpoints, ScheduledCheckpoints } from '../../src/application/audit/audit-checkpoints.use-case.js';
import { VerifyAuditChain } from '../../src/application/audit/verify-audit-chain.use-case.js';
import { PolicyCache } from '../../src/application/signing/policy-cache.js';
import { isServedEndpoint } from '../../src/application/governance/governed-entries.js';
import { checkpointJwk, checkpointKeyFrom } from '../../src/domain/audit-checkpoint.js';
import { ErrorCode } from '../../src/domain/errors.js';
import type { AuditLog } from '../../src/ports/audit-log.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { JobLock } from '../../src/ports/job-lock.port.js';
import type { KeyStore, KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import type { RequestRateStore } from '../../src/ports/request-rate-store.port.js';
import type { WalletRepository } from '../../src/ports/wallet-repository.port.js';
import type { WebhookOutbox } from '../../src/ports/webhook-outbox.port.js';
import { requireNativeBindingsFor } from '../native-bindings.js';
import { installKeccak256 } from '../system/keccak.js';
import { DEFAULT_DISPATCHER_SETTINGS, WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { auditSinkGate, auditStreamerOf } from './audit-stream.js';
import { WebhookKeys, type WebhookKeySet } from '../webhooks/webhook-signing-key.js';
import type { ShamirUnseal } from '../keystore/local-file/shamir-unseal.js';
import { bindEarlierWallets } from './binding-upgrade.js';
import { chainModule, ethereumModule, keyStoresModule, persistenceModule, replayModule, systemModule } from './container-modules.js';
import { PurgeScheduler } from './purge-scheduler.js';
import { readinessOf } from './readiness.js';
import { startRefusedAuthFlush } from './refused-auth-flush.js';
import { TOKENS } from './tokens.js';
import { useCasesFrom, useCasesModule, type UseCases } from './use-cases.js';
import { withVaultMetrics, type VaultMetrics } from './vault-metrics.js';
import { validateVaultOptions, type VaultLogger, type VaultOptions } from './vault-options.js';

/**
 * The vault: every use case of USE_CASES (use-cases.ts), built once over the given persistence and key
 * stores, and the vault's lifetime. The HTTP router (`wallet-vault/express`), the standalone server and
 * the CLI all work through one of these.
 */
export interface Vault extends UseCases {
  /** This deployment's id, recorded on every key it creates; null when the persistence has none. */
  readonly deploymentId: string | null;
  /** The inversify container the use cases came from (tests and operators reach ports through TOKENS). */
  readonly container: Container;
  /** What `GET …/status` reports as the version. */
  readonly version: string;
  /** The persistence's description (`SQLite <path>`, `PostgreSQL database "name" on host:port`), for logs. */
  readonly database: string;
  /**
   * Request counts shared by every instance on the vault's database (PostgreSQL): where the HTTP layer
   * counts the per-API-key rate limit by default. Absent with SQLite.
   */
  readonly requestRates?: RequestRateStore;
  /** Resolves when the database and every key store answer (bounded); rejects naming what failed. */
  readiness(): Promise<void>;
  /**
   * One run of the purge, idempotency clean-up and orphan sweep (also when `jobs: false`) that starts after
   * this call, so it sees every change made before it: a run under way is waited for first.
   */
  runJobsOnce(): Promise<void>;
  /** The public key(s) webhook deliveries are signed with, as `GET /.well-known/wallet-vault-webhook-keys` answers. */
  webhookKeys(): Promise<WebhookKeySet>;
  /**
   * The public key audit checkpoints are signed with, as `GET /.well-known/wallet-vault-audit-checkpoint-keys`
   * answers; null without `auditCheckpoints`.
   */
  auditCheckpointKeys(): CheckpointKeySet | null;
  /** With `auditStream.requireSink`: throws AUDIT_SINK_UNAVAILABLE while no audit sink accepts records. */
  readonly auditSinkGate?: () => void;
  /** VAULT_SEAL=shamir (the standalone server's configuration): this process's unseal; absent without a seal. */
  readonly seal?: ShamirUnseal;
  /** The Prometheus series of `createVault({ metrics })`; absent without that option. */
  readonly metrics?: VaultMetrics;
  /** Stops the background jobs, then closes the key stores and the persistence. Idempotent. */
  close(): Promise<void>;
}

/** How often the scheduled audit checkpoint is written by default (ms): hourly. */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 3_600_000;

/** A JWKS of the audit checkpoint key (RFC 7517, the key as an RFC 8037 OKP). */
export interface CheckpointKeySet {
  readonly keys: readonly ReturnType<typeof checkpointJwk>[];
}

const SILENT: VaultLogger = { info() {}, warn() {}, error() {} };

/**
 * The composition root. Validates `options` (a bad one throws VaultOptionsError naming it), refuses a
 * JavaScript fallback of secp256k1 or keccak unless `allowJavaScriptFallback` (NativeBindingError, the
 * guard `serve` applies; neither takes over what was handed in), pings every
 * key store (a store that does not answer rejects, after closing what was handed over), builds the
 * container from one module per adapter family and starts the background jobs; with key stores, binds the
 * wallets of a release before bindings the first time it runs after the migration that added them
 * (BindWallets.upgrade). The vault owns the persistence and key stores from here on: `close()` closes them.
 */
export async function createVault(input: VaultOptions): Promise<Vault> {
  installKeccak256();
  const options = withVaultMetrics(validateVaultOptions(input));
  requireNativeBindingsFor('createVault', options.allowJavaScriptFallback);
  const { persistence } = options;
  const keyStores = options.keyStores ?? [];
  const closeAll = async () => {
    await Promise.all(keyStores.map((s) => s.close()));
    await persistence.close();
  };
  let vault: Vault;
  try {
    await Promise.all(keyStores.map((s) => s.ping()));
    // Read once: the keys this vault creates carry it, and its sweep looks only at keys that do.
    const deploymentId = (await persistence.keyQuarantine?.deploymentId()) ?? null;
    vault = build(options, keyStores, deploymentId, closeAll);
    // Each audit sink tried once before the first write can ask whether one accepts (VAULT_AUDIT_REQUIRE_SINK).
    await streamStarts.get(vault);
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }
  // Before anything is signed: the wallets of a release before bindings are bound once, here, where the keys are.
  if (keyStores.length > 0) {
    await bindEarlierWallets(vault.bindWallets, options.logger ?? SILENT).catch(async (error: unknown) => {
      await vault.close().catch(() => undefined);
      throw error;
    });
  }
  return vault;
}

/** The audit stream's start of each vault built here: its sinks' first probes (bounded by their timeout). */
const streamStarts = new WeakMap<Vault, Promise<void>>();

/** The container, the use cases and the jobs over stores that answered. */
function build(options: VaultOptions & { readonly metrics?: VaultMetrics }, keyStores: readonly KeyStore[], deploymentId: string | null, closeAll: () => Promise<void>): Vault {
  const { persistence } = options;
  const version = options.version ?? 'unknown';
  const container = new Container({ defaultScope: 'Singleton' });
  const webhookOptions = options.webhooks === false ? undefined : options.webhooks;
  // This process delivers webhooks: the events it writes prompt the dispatcher (it watches the audit records).
  const delivers = webhookOptions !== undefined && persistence.webhooks !== undefined && options.jobs !== false;
  // One module per adapter family, then the application's: the ports first, the use cases over them.
  container.load(
    systemModule(options.clock),
    chainModule(options),
    ethereumModule(),
    replayModule(persistence.replayGuard),
    persistenceModule(persistence, deploymentId),
    keyStoresModule(keyStores, options.defaultKeyStore),
    useCasesModule({
      chains: [...CHAINS, ...(options.chains ?? []).map((c) => c.name)],
      chainIds: Object.fromEntries([...Object.entries(CHAIN_IDS), ...(options.chains ?? []).map((c) => [c.name, c.chainId] as const)].map(([name, id]) => [name, id.toString()])),
      authSecret: options.authSecret,
      // Lower-case already (validateVaultOptions).
      governancePins: options.governancePins ?? new Map<string, string>(),
      authRefused: options.authRefused,
      invalidVotes: options.invalidVotes,
      simulations: options.simulationMetrics,
      ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
      ...(options.oidc === undefined ? {} : { oidc: { ...options.oidc, timeoutMs: options.outboundTimeoutMs ?? 5000 } }),
      consoleChallenges: { ...DEFAULT_CHALLENGE_BOUNDS, ...options.consoleChallenges },
      version,
    }),
  );
  container.bind(TOKENS.OPTIONS).toConstantValue(options);
  container.bind(TOKENS.VERSION).toConstantValue(version);
  options.configure?.(container);

  const logger = options.logger ?? SILENT;
  const outbox = container.get<WebhookOutbox | undefined>(TOKENS.WEBHOOK_OUTBOX);
  const clock = container.get<Clock>(TOKENS.CLOCK);
  const checkpointOptions = options.auditCheckpoints === false ? undefined : options.auditCheckpoints;
  const checkpointKey = checkpointOptions ? checkpointKeyFrom(checkpointOptions.key) : undefined;
  const checkpoints = checkpointKey
    ? new ScheduledCheckpoints(
        new AuditCheckpoints(container.get<AuditLog>(TOKENS.AUDIT_LOG), clock, outbox),
        new VerifyAuditChain(container.get<AuditLog>(TOKENS.AUDIT_LOG)),
        clock,
        checkpointKey,
        checkpointOptions?.intervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS,
      )
    : undefined;
  const scheduler = new PurgeScheduler(
    {
      get purge() {
        return container.get(PurgeExpiredWallets);
      },
      get purgeIdempotency() {
        return container.get(PurgeExpiredIdempotency);
      },
      get sweep() {
        return container.get(SweepOrphanKeys);
      },
      get expireApprovals() {
        return container.get(ExpireApprovals);
      },
      checkpoints,
    },
    container.get<JobLock>(TOKENS.JOB_LOCK),
    options.jobs === false ? 0 : (options.jobs?.intervalMs ?? 60_000),
    logger,
    options.jobMetrics,
  );
  // What the use cases resolve, after configure(): a repository or key stores rebound there are the
  // ones readiness must ping, not those the options named.
  const repository = container.get<WalletRepository>(TOKENS.WALLET_REPOSITORY);
  const servingStores = container.isBound(TOKENS.KEY_STORE_REGISTRY) ? container.get<KeyStoreRegistry>(TOKENS.KEY_STORE_REGISTRY).all() : [];
  const readiness = readinessOf(
    [
      { name: 'database', code: ErrorCode.DATABASE_UNAVAILABLE, ping: () => repository.ping() },
      ...servingStores.map((s) => ({ name: `key store ${s.name}`, code: ErrorCode.KEYSTORE_UNAVAILABLE, ping: () => s.ping() })),
    ],
    Math.min(options.outboundTimeoutMs ?? 5000, 2000),
  );
  const webhookKeys = new WebhookKeys(webhookOptions?.signingKey, outbox, () => clock.now());
  const dispatcher =
    delivers && outbox
      ? new WebhookDispatcher(
          outbox,
          container.get<JobLock>(TOKENS.JOB_LOCK),
          webhookKeys,
          deploymentId ?? 'wallet-vault',
          clock,
          logger,
          options.webhookMetrics,
          persistence.watchAudit?.bind(persistence),
          { ...DEFAULT_DISPATCHER_SETTINGS, pollIntervalMs: webhookOptions?.pollIntervalMs ?? DEFAULT_DISPATCHER_SETTINGS.pollIntervalMs },
          (endpoint) => isServedEndpoint(container.get(PolicyCache), endpoint),
        )
      : undefined;
  const streamer = options.auditStream ? auditStreamerOf(options.auditStream, persistence, container.get<JobLock>(TOKENS.JOB_LOCK), logger, options.jobs !== false) : undefined;
  let closing: Promise<void> | undefined;
  let refusedAuthFlush: { stop(): Promise<void> } | undefined;
  const built: Vault = Object.assign(useCasesFrom(container), {
    container,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    version,
    deploymentId,
    database: persistence.description,
    ...(persistence.requestRates ? { requestRates: persistence.requestRates } : {}),
    readiness,
    runJobsOnce: () => scheduler.runAfterNow(),
    webhookKeys: () => webhookKeys.keySet(),
    auditCheckpointKeys: () => (checkpointKey ? { keys: [checkpointJwk(checkpointKey.publicKey)] } : null),
    ...(streamer && options.auditStream?.requireSink ? { auditSinkGate: auditSinkGate(streamer, options.auditStream.metrics) } : {}),
    close: () =>
      (closing ??= (async () => {
        await streamer?.stop();
        await dispatcher?.stop();
        await scheduler.stop();
        await refusedAuthFlush?.stop();
        await closeAll();
      })()),
  });
  // Last, once everything resolved: a bad rebind in configure() must not leave jobs running.
  if (options.jobs !== false && keyStores.length > 0) scheduler.start();
  dispatcher?.start();
  if (streamer) streamStarts.set(built, streamer.start());
  refusedAuthFlush = startRefusedAuthFlush(container.get(RefusedAuthSummary), options.authRefusedSummaryIntervalMs ?? 60_000, logger);
  return built;
}
