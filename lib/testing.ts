/**
 * `wallet-vault/testing`: the contract suites every built-in store passes, and the in-memory twins the
 * vault's own unit tests use. The suites are vitest suites (`describe`/`it`): importing this entry needs
 * vitest installed (an optional peer dependency); nothing else in the package loads it.
 */
import { installKeccak256 } from '../adapters/system/keccak.js';
export { describeKeyStoreContract, type KeyStoreFixture, type KeyStoreTraits } from '../adapters/testing/key-store.contract.js';
export { describeWalletRepositoryContract, type WalletRepositoryFixture } from '../adapters/testing/wallet-repository.contract.js';
export { describeAuditLogContract, expectValidChain, type AuditLogFixture } from '../adapters/testing/audit-log.contract.js';
export { describePolicyRepositoryContract, type PolicyRepositoryFixture } from '../adapters/testing/policy-repository.contract.js';
export { describeSignatureLogContract, type SignatureLogFixture } from '../adapters/testing/signature-log.contract.js';
export { describeJobLockContract, type JobLockFixture } from '../adapters/testing/job-lock.contract.js';
export { describeKeyQuarantineContract, type KeyQuarantineFixture } from '../adapters/testing/key-quarantine.contract.js';
export { describeSignCounterContract, type SignCounterFixture } from '../adapters/testing/sign-counter.contract.js';
export { describeApprovalStoreContract, type ApprovalStoreFixture } from '../adapters/testing/approval-store.contract.js';
export { expectSharedReplayGuard, type SharedReplayGuardWorld } from '../adapters/testing/replay-guard.contract.js';
export { InMemoryKeyStore } from '../adapters/testing/in-memory.key-store.js';
export {
  inMemoryPersistence,
  InMemoryApprovalStore,
  InMemoryAuditLog,
  InMemoryJobLock,
  InMemoryKeyQuarantine,
  InMemoryPolicyRepository,
  InMemorySignCounter,
  InMemorySignatureLog,
  InMemoryWalletRepository,
} from '../adapters/testing/in-memory.persistence.js';
export { FixedClock, MovableClock } from '../adapters/testing/clocks.js';

// The domain hashes with the keccak256 it is given (src/domain/keccak.ts): this entry gives it before anything of it runs.
installKeccak256();
