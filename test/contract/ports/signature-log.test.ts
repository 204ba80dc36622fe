import { SqlSignatureLog } from '../../../adapters/persistence/sql/sql.signature-log.js';
import { describeEachDialect, nothingToClean } from '../../support/sql-dialects.js';
import { describeSignatureLogContract, InMemoryAuditLog, InMemorySignatureLog } from 'wallet-vault/testing';

describeEachDialect((d) =>
  describeSignatureLogContract(d.name, async () => {
    const { sql, cleanup } = await d.open();
    return { log: new SqlSignatureLog(sql), cleanup };
  }),
);

describeSignatureLogContract('in-memory (test twin)', async () => ({ log: new InMemorySignatureLog(new InMemoryAuditLog()), cleanup: nothingToClean }));
