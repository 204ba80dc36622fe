import { SqlAuditLog } from '../../../adapters/persistence/sql/sql.audit-log.js';
import { describeEachDialect, nothingToClean } from '../../support/sql-dialects.js';
import { describeAuditLogContract, InMemoryAuditLog } from 'wallet-vault/testing';

describeEachDialect((d) => {
  // The contract wants an empty log per test.
  const emptied = d.emptiedPerTest(['audit_log']);
  describeAuditLogContract(d.name, async () => {
    const { sql, cleanup } = await emptied();
    return { log: new SqlAuditLog(sql), cleanup };
  });
});

describeAuditLogContract('in-memory (test twin)', async () => ({ log: new InMemoryAuditLog(), cleanup: nothingToClean }));
