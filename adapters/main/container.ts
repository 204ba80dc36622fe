import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Container } from 'inversify';
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
import { ManageVaults } from '../../src/application/manage-vaults.use-case.js';
import { PolicyCache } from '../../src/application/policy-cache.js';
import { PurgeExpiredIdempotency } from '../../src/application/purge-expired-idempotency.use-case.js';
import { PurgeExpiredWallets } from '../../src/application/purge-expired-wallets.use-case.js';
import { RefusedAuthSummary, type RefusedAuthObserver } from '../../src/application/refused-auth-summary.js';
import { RecordSubmission } from '../../src/application/record-submission.use-case.js';
import { RenameWallet } from '../../src/application/rename-wallet.use-case.js';
import { RewrapKeys } from '../../src/application/rewrap-keys.use-case.js';
import { SignCall } from '../../src/application/sign-call.use-case.js';
import { SweepOrphanKeys } from '../../src/application/sweep-orphan-keys.use-case.js';
import { UnexpireWallet } from '../../src/application/unexpire-wallet.use-case.js';
import { VerifyAuditChain } from '../../src/application/verify-audit-chain.use-case.js';
import { VerifyAuthSignature } from '../../src/application/verify-auth-signature.use-case.js';
import { AUDIT_LOG, type AuditLog } from '../../src/ports/audit-log.port.js';
import { CHAIN_READER, type ChainReader } from '../../src/ports/chain-reader.port.js';
import { CLOCK, type Clock } from '../../src/ports/clock.port.js';
import { ID_GENERATOR } from '../../src/ports/id-generator.port.js';
import { JOB_LOCK, type JobLock } from '../../src/ports/job-lock.port.js';
import { KEY_STORE_REGISTRY, type KeyStore, type KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import { POLICY_REPOSITORY, type PolicyRepository } from '../../src/ports/policy-repository.port.js';
import { REPLAY_GUARD, type ReplayGuard } from '../../src/ports/replay-guard.port.js';
import { SIGNATURE_LOG, type SignatureLog } from '../../src/ports/signature-log.port.js';
import { WALLET_REPOSITORY, type WalletRepository } from '../../src/ports/wallet-repository.port.js';
import { JsonRpcChainReader } from '../chain/json-rpc.chain-reader.js';
import { InMemoryReplayGuard } from '../replay/in-memory.replay-guard.js';
import { SystemClock } from '../system/system.clock.js';
import { UuidV7IdGenerator } from '../system/uuid-v7.id-generator.js';
import type { AppConfig } from './config.js';

export const CONFIG = Symbol.for('wallet-vault.Config');
export const VERSION = Symbol.for('wallet-vault.Version');

/** The adapters a container is built from; the caller opens them (some need async set-up) and closes them. */
export interface ContainerParts {
  readonly config: AppConfig;
  readonly version: string;
  readonly repository: WalletRepository;
  readonly signatureLog: SignatureLog;
  readonly auditLog: AuditLog;
  readonly policies: PolicyRepository;
  readonly jobLock: JobLock;
  /** Absent for CLI commands that never touch keys. */
  readonly keyStores?: readonly KeyStore[];
  /** Tests substitute a clock they can move. */
  readonly clock?: Clock;
  /** Nonces shared by every instance on one database; without it they are kept in this process. */
  readonly replayGuard?: (now: () => number) => ReplayGuard;
  /** Told of each refused authentication besides the audit summary (the metrics). */
  readonly authRefused?: RefusedAuthObserver;
}

/**
 * The one place that knows which class implements which port. The core's classes take plain
 * constructor arguments, so they are bound with factories rather than decorators.
 */
export function buildContainer(parts: ContainerParts): Container {
  const c = new Container({ defaultScope: 'Singleton' });
  const { config } = parts;
  c.bind(CONFIG).toConstantValue(config);
  c.bind(VERSION).toConstantValue(parts.version);
  c.bind<Clock>(CLOCK).toConstantValue(parts.clock ?? new SystemClock());
  c.bind(ID_GENERATOR).toConstantValue(new UuidV7IdGenerator());
  c.bind<WalletRepository>(WALLET_REPOSITORY).toConstantValue(parts.repository);
  c.bind<SignatureLog>(SIGNATURE_LOG).toConstantValue(parts.signatureLog);
  c.bind<AuditLog>(AUDIT_LOG).toConstantValue(parts.auditLog);
  c.bind<PolicyRepository>(POLICY_REPOSITORY).toConstantValue(parts.policies);
  c.bind<JobLock>(JOB_LOCK).toConstantValue(parts.jobLock);
  if (parts.keyStores) {
    c.bind<KeyStoreRegistry>(KEY_STORE_REGISTRY).toConstantValue(new MapKeyStoreRegistry(parts.keyStores, config.keyStore));
  }
  c.bind<ChainReader>(CHAIN_READER).toDynamicValue(() => new JsonRpcChainReader({ rpcUrls: config.rpcUrls, timeoutMs: config.outboundTimeoutMs }));
  c.bind<ReplayGuard>(REPLAY_GUARD).toDynamicValue(() => {
    const now = () => clock().now().getTime();
    return parts.replayGuard ? parts.replayGuard(now) : new InMemoryReplayGuard(undefined, now);
  });

  const repo = () => c.get<WalletRepository>(WALLET_REPOSITORY);
  const clock = () => c.get<Clock>(CLOCK);
  const keyStores = () => c.get<KeyStoreRegistry>(KEY_STORE_REGISTRY);
  const auditLog = () => c.get<AuditLog>(AUDIT_LOG);

  c.bind(PolicyCache).toDynamicValue(() => new PolicyCache(c.get<PolicyRepository>(POLICY_REPOSITORY), clock()));
  c.bind(ManageVaults).toDynamicValue(() => new ManageVaults(repo(), clock(), c.get(ID_GENERATOR), auditLog()));
  c.bind(ManagePolicies).toDynamicValue(
    () => new ManagePolicies(repo(), c.get(POLICY_REPOSITORY), clock(), auditLog(), (vaultId) => c.get(PolicyCache).invalidate(vaultId)),
  );
  c.bind(ListAuditRecords).toDynamicValue(() => new ListAuditRecords(auditLog()));
  c.bind(VerifyAuditChain).toDynamicValue(() => new VerifyAuditChain(auditLog()));
  c.bind(RefusedAuthSummary).toDynamicValue(() => new RefusedAuthSummary(repo(), clock(), auditLog()));
  c.bind(Authenticate).toDynamicValue(() => {
    const summary = c.get(RefusedAuthSummary);
    const also = parts.authRefused;
    return new Authenticate(repo(), clock(), also ? { refused: (e) => (summary.refused(e), also.refused(e)) } : summary);
  });
  c.bind(CreateWallet).toDynamicValue(() => new CreateWallet(repo(), keyStores(), clock(), c.get(ID_GENERATOR), auditLog()));
  c.bind(ListWallets).toDynamicValue(() => new ListWallets(repo(), clock()));
  c.bind(GetWallet).toDynamicValue(() => new GetWallet(repo(), clock()));
  c.bind(RenameWallet).toDynamicValue(() => new RenameWallet(repo(), clock(), auditLog()));
  c.bind(ExpireWallet).toDynamicValue(() => new ExpireWallet(repo(), clock(), auditLog()));
  c.bind(UnexpireWallet).toDynamicValue(() => new UnexpireWallet(repo(), clock(), auditLog()));
  c.bind(GetVaultStatus).toDynamicValue(() => new GetVaultStatus(repo(), clock(), parts.version));
  c.bind(PurgeExpiredWallets).toDynamicValue(() => new PurgeExpiredWallets(repo(), keyStores(), clock(), auditLog()));
  c.bind(PurgeExpiredIdempotency).toDynamicValue(() => new PurgeExpiredIdempotency(repo(), clock()));
  c.bind(RewrapKeys).toDynamicValue(() => new RewrapKeys(repo(), keyStores()));
  c.bind(SweepOrphanKeys).toDynamicValue(() => new SweepOrphanKeys(repo(), keyStores(), clock()));
  c.bind(SignCall).toDynamicValue(
    () =>
      new SignCall(
        repo(),
        keyStores(),
        c.get(CHAIN_READER),
        c.get(SIGNATURE_LOG),
        clock(),
        (n) => randomBytes(n),
        c.get(PolicyCache),
        auditLog(),
      ),
  );
  c.bind(VerifyAuthSignature).toDynamicValue(
    () => new VerifyAuthSignature(config.authSecret, c.get(REPLAY_GUARD), clock(), auditLog()),
  );
  c.bind(RecordSubmission).toDynamicValue(() => new RecordSubmission(c.get(SIGNATURE_LOG), clock()));
  c.bind(GetSubmission).toDynamicValue(() => new GetSubmission(c.get(SIGNATURE_LOG)));
  return c;
}
