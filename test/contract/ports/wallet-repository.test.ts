import { SqlAuditLog } from '../../../adapters/persistence/sql/sql.audit-log.js';
import { SqlSignatureLog } from '../../../adapters/persistence/sql/sql.signature-log.js';
import { SqlWalletRepository } from '../../../adapters/persistence/sql/sql.wallet-repository.js';
import { describeEachDialect, nothingToClean } from '../../support/sql-dialects.js';
// The contract suites by package name, through the public entry an outside store's author uses.
import { describeWalletRepositoryContract, InMemoryAuditLog, InMemorySignatureLog, InMemoryWalletRepository } from 'wallet-vault/testing';

describeEachDialect((d) =>
  describeWalletRepositoryContract(d.name, async () => {
    const { sql, cleanup } = await d.open();
    return { repo: new SqlWalletRepository(sql), signatureLog: new SqlSignatureLog(sql), auditLog: new SqlAuditLog(sql), cleanup };
  }),
);

// The unit tests' twin must behave like the real adapters, or those tests prove nothing.
describeWalletRepositoryContract('in-memory (test twin)', async () => {
  const auditLog = new InMemoryAuditLog();
  return { repo: new InMemoryWalletRepository(auditLog), signatureLog: new InMemorySignatureLog(auditLog), auditLog, cleanup: nothingToClean };
});
