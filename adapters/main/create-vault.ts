import 'reflect-metadata';
import { Container, ContainerModule } from 'inversify';
import { Authenticate } from '../../src/application/authenticate.use-case.js';
import { CreateWallet } from '../../src/application/create-wallet.use-case.js';
import { ExpireWallet } from '../../src/application/expire-wallet.use-case.js';
import { GetSubmission } from '../../src/application/get-submission.use-case.js';
import { GetVaultStatus } from '../../src/application/get-vault-status.use-case.js';
import { GetWallet } from '../../src/application/get-wallet.use-case.js';
import { MapKeyStoreRegistry } from '../../src/application/key-store-registry.js';
import { ListAuditRecords } from '../../src/application/list-audit-records.use-case.js';
import { ListWallets } from '../../src/application/list-wallets.use-case.js';
import { ManagePolicies } from '../../src/application/manage-policies.use-case.js';
import { ManageQuarantine } from '../../src/application/manage-quarantine.use-case.js';
import { ManageVaults } from '../../src/application/manage-vaults.use-case.js';
import { PolicyCache } from '../../src/application/policy-cache.js';
import { PurgeExpiredIdempotency } from '../../src/application/purge-expired-idempotency.use-case.js';
import { PurgeExpiredWallets } from '../../src/application/purge-expired-wallets.use-case.js';
import { RecordSubmission } from '../../src/application/record-submission.use-case.js';
import { RefusedAuthSummary } from '../../src/application/refused-auth-summary.js';
import { RenameWallet } from '../../src/application/rename-wallet.use-case.js';
import { RewrapKeys } from '../../src/application/rewrap-keys.use-case.js';
import { CHAINS, SignCall } from '../../src/application/sign-call.use-case.js';
import { SweepOrphanKeys } from '../../src/application/sweep-orphan-keys.use-case.js';
import { UnexpireWallet } from '../../src/application/unexpire-wallet.use-case.js';
import { VerifyAuditChain } from '../../src/application/verify-audit-chain.use-case.js';
import { VerifyAuthSignature } from '../../src/application/verify-auth-signature.use-case.js';
import { ErrorCode } from '../../src/domain/errors.js';
import type { AuditLog } from '../../src/ports/audit-log.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { JobLock } from '../../src/ports/job-lock.port.js';
import type { KeyQuarantine } from '../../src/ports/key-quarantine.port.js';
import type { KeyStore, KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import type { PolicyRepository } from '../../src/ports/policy-repository.port.js';
import type { ReplayGuard } from '../../src/ports/replay-guard.port.js';
import type { WalletRepository } from '../../src/ports/wallet-repository.port.js';
import { JsonRpcChainReader } from '../chain/json-rpc.chain-reader.js';
import { requireNativeBindingsFor } from '../native-bindings.js';
import { InMemoryReplayGuard } from '../replay/in-memory.replay-guard.js';
import { installKeccak256 } from '../system/keccak.js';
import { pooledRandom } from '../system/pooled-random.js';
import { SystemClock } from '../system/system.clock.js';
import { UuidV7IdGenerator } from '../system/uuid-v7.id-generator.js';
import { PurgeScheduler } from './purge-scheduler.js';
import { readinessOf } from './readiness.js';
import { startRefusedAuthFlush } from './refused-auth-flush.js';
import { TOKENS } from './tokens.js';
import { validateVaultOptions, type VaultLogger, type VaultOptions } from './vault-options.js';

/**
 * The vault: every use case, built once over the given persistence and key stores. The HTTP router
 * (`wallet-vault/express`), the standalone server and the CLI all work through one of these.
 */
export interface Vault {
  // Wallets
  readonly createWallet: CreateWallet;
  readonly listWallets: ListWallets;
  readonly getWallet: GetWallet;
  readonly renameWallet: RenameWallet;
  readonly expireWallet: ExpireWallet;
  readonly unexpireWallet: UnexpireWallet;
  // Sign and submissions
  readonly signCall: SignCall;
  readonly verifyAuthSignature: VerifyAuthSignature;
  readonly recordSubmission: RecordSubmission;
  readonly getSubmission: GetSubmission;
  // Status, vaults and API keys, policies, audit
  readonly getVaultStatus: GetVaultStatus;
  readonly authenticate: Authenticate;
  readonly manageVaults: ManageVaults;
  readonly managePolicies: ManagePolicies;
  readonly listAuditRecords: ListAuditRecords;
  readonly verifyAuditChain: VerifyAuditChain;
  // Key maintenance (need keyStores)
  readonly rewrapKeys: RewrapKeys;
  readonly purgeExpiredWallets: PurgeExpiredWallets;
  readonly purgeExpiredIdempotency: PurgeExpiredIdempotency;
  readonly sweepOrphanKeys: SweepOrphanKeys;
  /** `wallet-vault keys quarantine`: list, restore or destroy the keys the sweep quarantined. */
  readonly manageQuarantine: ManageQuarantine;
  /** This deployment's id, recorded on every key it creates; null when the persistence has none. */
  readonly deploymentId: string | null;
  /** The inversify container the use cases came from (tests and operators reach ports through TOKENS). */
  readonly container: Container;
  /** What `GET …/status` reports as the version. */
  readonly version: string;
  /** The persistence's description (`SQLite <path>`, `PostgreSQL database "name" on host:port`), for logs. */
  readonly database: string;
  /** Resolves when the database and every key store answer (bounded); rejects naming what failed. */
  readiness(): Promise<void>;
  /** One run of the purge, idempotency clean-up and orphan sweep now (also when `jobs: false`). */
  runJobsOnce(): Promise<void>;
  /** Stops the background jobs, then closes the key stores and the persistence. Idempotent. */
  close(): Promise<void>;
}

const SILENT: VaultLogger = { info() {}, warn() {}, error() {} };

/** System adapters: clock, ids, chain reads, the replay guard. */
function systemModule(options: VaultOptions, persistence: Persistence): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<Clock>(TOKENS.CLOCK).toConstantValue(options.clock ?? new SystemClock());
    bind(TOKENS.ID_GENERATOR).toConstantValue(new UuidV7IdGenerator());
    bind(TOKENS.CHAIN_READER).toDynamicValue(
      () =>
        options.chainReader ??
        new JsonRpcChainReader({
          rpcUrls: options.rpcUrls ?? {},
          addedChainIds: Object.fromEntries((options.chains ?? []).map((c) => [c.name, c.chainId])),
          timeoutMs: options.outboundTimeoutMs ?? 5000,
        }),
    );
    bind<ReplayGuard>(TOKENS.REPLAY_GUARD).toDynamicValue((ctx) => {
      const clock = ctx.get<Clock>(TOKENS.CLOCK);
      const now = () => clock.now().getTime();
      return persistence.replayGuard ? persistence.replayGuard(now) : new InMemoryReplayGuard(undefined, now);
    });
  });
}

/** The database: one binding per persistence port. */
function persistenceModule(persistence: Persistence, deploymentId: string | null): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<KeyQuarantine | undefined>(TOKENS.KEY_QUARANTINE).toConstantValue(persistence.keyQuarantine);
    bind<string | null>(TOKENS.DEPLOYMENT_ID).toConstantValue(deploymentId);
    bind<WalletRepository>(TOKENS.WALLET_REPOSITORY).toConstantValue(persistence.repository);
    bind(TOKENS.SIGNATURE_LOG).toConstantValue(persistence.signatureLog);
    bind<AuditLog>(TOKENS.AUDIT_LOG).toConstantValue(persistence.auditLog);
    bind<PolicyRepository>(TOKENS.POLICY_REPOSITORY).toConstantValue(persistence.policies);
    bind<JobLock>(TOKENS.JOB_LOCK).toConstantValue(persistence.jobLock);
  });
}

/** The key stores; without any, the registry is unbound and a use case that needs it fails to resolve. */
function keyStoreModule(keyStores: readonly KeyStore[], defaultName: string | undefined): ContainerModule {
  return new ContainerModule(({ bind }) => {
    if (keyStores.length === 0) return;
    bind<KeyStoreRegistry>(TOKENS.KEY_STORE_REGISTRY).toConstantValue(new MapKeyStoreRegistry(keyStores, defaultName ?? keyStores[0]!.name));
  });
}

/**
 * The application's use cases. The core's classes take plain constructor arguments (src/ never imports
 * inversify), so they are bound with factories over the port tokens rather than with decorators.
 */
function useCaseModule(options: VaultOptions, version: string): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.OPTIONS).toConstantValue(options);
    bind(TOKENS.VERSION).toConstantValue(version);
    const ports = (ctx: { get<T>(id: symbol): T }) => ({
      repo: ctx.get<WalletRepository>(TOKENS.WALLET_REPOSITORY),
      clock: ctx.get<Clock>(TOKENS.CLOCK),
      audit: ctx.get<AuditLog>(TOKENS.AUDIT_LOG),
    });
    const keys = (ctx: { get<T>(id: symbol): T }) => ctx.get<KeyStoreRegistry>(TOKENS.KEY_STORE_REGISTRY);
    // The names Sign and sign policies accept: the interface's and the ones the caller added.
    const chains = [...CHAINS, ...(options.chains ?? []).map((c) => c.name)];
    bind(PolicyCache).toDynamicValue((ctx) => new PolicyCache(ctx.get(TOKENS.POLICY_REPOSITORY), ports(ctx).clock));
    bind(ManageVaults).toDynamicValue((ctx) => {
      const p = ports(ctx);
      return new ManageVaults(p.repo, p.clock, ctx.get(TOKENS.ID_GENERATOR), p.audit);
    });
    bind(ManagePolicies).toDynamicValue((ctx) => {
      const p = ports(ctx);
      const cache = ctx.get(PolicyCache);
      return new ManagePolicies(p.repo, ctx.get(TOKENS.POLICY_REPOSITORY), p.clock, p.audit, (vaultId) => cache.invalidate(vaultId), chains);
    });
    bind(ListAuditRecords).toDynamicValue((ctx) => new ListAuditRecords(ports(ctx).audit, ports(ctx).repo));
    bind(VerifyAuditChain).toDynamicValue((ctx) => new VerifyAuditChain(ports(ctx).audit));
    bind(RefusedAuthSummary).toDynamicValue((ctx) => new RefusedAuthSummary(ports(ctx).repo, ports(ctx).clock, ports(ctx).audit));
    bind(Authenticate).toDynamicValue((ctx) => {
      const summary = ctx.get(RefusedAuthSummary);
      const also = options.authRefused;
      return new Authenticate(ports(ctx).repo, ports(ctx).clock, also ? { refused: (e) => (summary.refused(e), also.refused(e)) } : summary);
    });
    bind(CreateWallet).toDynamicValue((ctx) => {
      const p = ports(ctx);
      return new CreateWallet(p.repo, keys(ctx), p.clock, ctx.get(TOKENS.ID_GENERATOR), p.audit, ctx.get(TOKENS.DEPLOYMENT_ID));
    });
    bind(ListWallets).toDynamicValue((ctx) => new ListWallets(ports(ctx).repo, ports(ctx).clock));
    bind(GetWallet).toDynamicValue((ctx) => new GetWallet(ports(ctx).repo, ports(ctx).clock));
    bind(RenameWallet).toDynamicValue((ctx) => new RenameWallet(ports(ctx).repo, ports(ctx).clock, ports(ctx).audit));
    bind(ExpireWallet).toDynamicValue((ctx) => new ExpireWallet(ports(ctx).repo, ports(ctx).clock, ports(ctx).audit));
    bind(UnexpireWallet).toDynamicValue((ctx) => new UnexpireWallet(ports(ctx).repo, ports(ctx).clock, ports(ctx).audit));
    bind(GetVaultStatus).toDynamicValue((ctx) => new GetVaultStatus(ports(ctx).repo, ports(ctx).clock, ctx.get(TOKENS.VERSION)));
    bind(PurgeExpiredWallets).toDynamicValue((ctx) => new PurgeExpiredWallets(ports(ctx).repo, keys(ctx), ports(ctx).clock, ports(ctx).audit));
    bind(PurgeExpiredIdempotency).toDynamicValue((ctx) => new PurgeExpiredIdempotency(ports(ctx).repo, ports(ctx).clock));
    bind(RewrapKeys).toDynamicValue((ctx) => new RewrapKeys(ports(ctx).repo, keys(ctx)));
    const quarantine = (ctx: { get<T>(id: symbol): T }) => ctx.get<KeyQuarantine | undefined>(TOKENS.KEY_QUARANTINE);
    bind(SweepOrphanKeys).toDynamicValue((ctx) => new SweepOrphanKeys(ports(ctx).repo, keys(ctx), quarantine(ctx), ports(ctx).clock, ports(ctx).audit));
    bind(ManageQuarantine).toDynamicValue((ctx) => {
      const p = ports(ctx);
      return new ManageQuarantine(p.repo, keys(ctx), quarantine(ctx), p.clock, ctx.get(TOKENS.ID_GENERATOR), p.audit);
    });
    bind(SignCall).toDynamicValue((ctx) => {
      const p = ports(ctx);
      return new SignCall(
        p.repo, keys(ctx), ctx.get(TOKENS.CHAIN_READER), ctx.get(TOKENS.SIGNATURE_LOG), p.clock, pooledRandom(), ctx.get(PolicyCache), p.audit, chains,
      );
    });
    bind(VerifyAuthSignature).toDynamicValue(
      (ctx) => new VerifyAuthSignature(options.authSecret, ctx.get(TOKENS.REPLAY_GUARD), ports(ctx).clock, ports(ctx).audit),
    );
    bind(RecordSubmission).toDynamicValue((ctx) => new RecordSubmission(ctx.get(TOKENS.SIGNATURE_LOG), ports(ctx).clock));
    bind(GetSubmission).toDynamicValue((ctx) => new GetSubmission(ctx.get(TOKENS.SIGNATURE_LOG)));
  });
}

/**
 * The composition root. Validates `options` (a bad one throws VaultOptionsError naming it), refuses a
 * JavaScript fallback of secp256k1 or keccak unless `allowJavaScriptFallback` (NativeBindingError, the
 * guard `serve` applies; neither takes over what was handed in), pings every
 * key store (a store that does not answer rejects, after closing what was handed over), builds the
 * container from one module per adapter family and starts the background jobs. The vault owns the
 * persistence and key stores from here on: `close()` closes them.
 */
export async function createVault(input: VaultOptions): Promise<Vault> {
  installKeccak256();
  const options = validateVaultOptions(input);
  requireNativeBindingsFor('createVault', options.allowJavaScriptFallback);
  const { persistence } = options;
  const keyStores = options.keyStores ?? [];
  const closeAll = async () => {
    await Promise.all(keyStores.map((s) => s.close()));
    await persistence.close();
  };
  try {
    await Promise.all(keyStores.map((s) => s.ping()));
    // Read once: the keys this vault creates carry it, and its sweep looks only at keys that do.
    const deploymentId = (await persistence.keyQuarantine?.deploymentId()) ?? null;
    return build(options, keyStores, deploymentId, closeAll);
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }
}

/** The container, the use cases and the jobs over stores that answered. */
function build(options: VaultOptions, keyStores: readonly KeyStore[], deploymentId: string | null, closeAll: () => Promise<void>): Vault {
  const { persistence } = options;
  const version = options.version ?? 'unknown';
  const container = new Container({ defaultScope: 'Singleton' });
  container.load(systemModule(options, persistence), persistenceModule(persistence, deploymentId), keyStoreModule(keyStores, options.defaultKeyStore), useCaseModule(options, version));
  options.configure?.(container);

  // Use cases that need a key store resolve lazily, so a vault without key stores (operator tools) works.
  const lazy = <T>(id: abstract new (...args: any[]) => T): PropertyDescriptor => {
    let resolved: T | undefined;
    return { enumerable: true, get: () => (resolved ??= container.get<T>(id)) };
  };
  const logger = options.logger ?? SILENT;
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
  let closing: Promise<void> | undefined;
  let refusedAuthFlush: { stop(): Promise<void> } | undefined;
  const get = <T>(id: abstract new (...args: any[]) => T): T => container.get<T>(id);
  const vault: Omit<Vault, LazyUseCase> = {
    container,
    version,
    deploymentId,
    database: persistence.description,
    authenticate: get(Authenticate),
    listWallets: get(ListWallets),
    getWallet: get(GetWallet),
    renameWallet: get(RenameWallet),
    expireWallet: get(ExpireWallet),
    unexpireWallet: get(UnexpireWallet),
    getVaultStatus: get(GetVaultStatus),
    verifyAuthSignature: get(VerifyAuthSignature),
    recordSubmission: get(RecordSubmission),
    getSubmission: get(GetSubmission),
    manageVaults: get(ManageVaults),
    managePolicies: get(ManagePolicies),
    listAuditRecords: get(ListAuditRecords),
    verifyAuditChain: get(VerifyAuditChain),
    readiness,
    runJobsOnce: () => scheduler.runOnce(),
    close: () =>
      (closing ??= (async () => {
        await scheduler.stop();
        await refusedAuthFlush?.stop();
        await closeAll();
      })()),
  };
  // Not spread into the object above: a spread would read (and so resolve) each getter at once.
  const built = Object.defineProperties(vault, {
    createWallet: lazy(CreateWallet),
    signCall: lazy(SignCall),
    rewrapKeys: lazy(RewrapKeys),
    purgeExpiredWallets: lazy(PurgeExpiredWallets),
    purgeExpiredIdempotency: lazy(PurgeExpiredIdempotency),
    sweepOrphanKeys: lazy(SweepOrphanKeys),
    manageQuarantine: lazy(ManageQuarantine),
  }) as Vault;
  // Last, once everything resolved: a bad rebind in configure() must not leave jobs running.
  if (options.jobs !== false && keyStores.length > 0) scheduler.start();
  refusedAuthFlush = startRefusedAuthFlush(get(RefusedAuthSummary), options.authRefusedSummaryIntervalMs ?? 60_000, logger);
  return built;
}

/** Use cases over the key stores: resolved on first read, so a vault without key stores still builds. */
type LazyUseCase =
  | 'createWallet'
  | 'signCall'
  | 'rewrapKeys'
  | 'purgeExpiredWallets'
  | 'purgeExpiredIdempotency'
  | 'sweepOrphanKeys'
  | 'manageQuarantine';
