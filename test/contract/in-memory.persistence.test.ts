import { describeAuditLogContract } from './audit-log.contract.js';
import { describeJobLockContract } from './job-lock.contract.js';
import { describePolicyRepositoryContract } from './policy-repository.contract.js';
import { describeWalletRepositoryContract } from './wallet-repository.contract.js';
import {
  InMemoryAuditLog,
  InMemoryJobLock,
  InMemoryPolicyRepository,
  InMemorySignatureLog,
  InMemoryWalletRepository,
} from '../support/in-memory.persistence.js';

// The unit tests' twins must behave like the real adapters, or those tests prove nothing.
const nothingToClean = async () => undefined;
describeWalletRepositoryContract('in-memory (test twin)', async () => {
  const auditLog = new InMemoryAuditLog();
  return { repo: new InMemoryWalletRepository(), signatureLog: new InMemorySignatureLog(auditLog), auditLog, cleanup: nothingToClean };
});
describeAuditLogContract('in-memory (test twin)', async () => ({ log: new InMemoryAuditLog(), cleanup: nothingToClean }));
describePolicyRepositoryContract('in-memory (test twin)', async () => ({ policies: new InMemoryPolicyRepository(), cleanup: nothingToClean }));
describeJobLockContract('in-memory (test twin)', async () => ({ lock: new InMemoryJobLock(), cleanup: nothingToClean }));
