import { randomUUID } from 'node:crypto';
import {
  describeAuditLogContract,
  describeJobLockContract,
  describeKeyQuarantineContract,
  describePolicyRepositoryContract,
  describeSignatureLogContract,
  describeApprovalStoreContract,
  describeSignCounterContract,
  describeWalletRepositoryContract,
  InMemoryApprovalStore,
  InMemoryAuditLog,
  InMemoryJobLock,
  InMemoryKeyQuarantine,
  InMemoryPolicyRepository,
  InMemorySignCounter,
  InMemorySignatureLog,
  InMemoryWalletRepository,
} from 'wallet-vault/testing';

// The unit tests' twins must behave like the real adapters, or those tests prove nothing.
const nothingToClean = async () => undefined;
describeWalletRepositoryContract('in-memory (test twin)', async () => {
  const auditLog = new InMemoryAuditLog();
  return { repo: new InMemoryWalletRepository(auditLog), signatureLog: new InMemorySignatureLog(auditLog), auditLog, cleanup: nothingToClean };
});
describeAuditLogContract('in-memory (test twin)', async () => ({ log: new InMemoryAuditLog(), cleanup: nothingToClean }));
describePolicyRepositoryContract('in-memory (test twin)', async () => ({ policies: new InMemoryPolicyRepository(), cleanup: nothingToClean }));
describeSignatureLogContract('in-memory (test twin)', async () => ({ log: new InMemorySignatureLog(new InMemoryAuditLog()), cleanup: nothingToClean }));
describeJobLockContract('in-memory (test twin)', async () => ({ lock: new InMemoryJobLock(), cleanup: nothingToClean }));
describeKeyQuarantineContract('in-memory (test twin)', async () => {
  const auditLog = new InMemoryAuditLog();
  return { quarantine: new InMemoryKeyQuarantine(undefined, auditLog), auditLog, other: new InMemoryKeyQuarantine(), cleanup: nothingToClean };
});
describeSignCounterContract('in-memory (test twin)', async () => {
  const counter = new InMemorySignCounter();
  return { counters: [counter, counter], cleanup: nothingToClean };
});
describeApprovalStoreContract('in-memory (test twin)', async () => {
  const auditLog = new InMemoryAuditLog();
  const signatureLog = new InMemorySignatureLog(auditLog);
  const apiKeys = new InMemoryWalletRepository(auditLog);
  const store = new InMemoryApprovalStore(auditLog, signatureLog, apiKeys);
  return { stores: [store, store], signatureLog, auditLog, apiKeys, newVault: async () => randomUUID(), cleanup: nothingToClean };
});
