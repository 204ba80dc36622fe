import { SqlAuditLog } from '../../../adapters/persistence/sql/sql.audit-log.js';
import { SqlKeyQuarantine } from '../../../adapters/persistence/sql/sql.key-quarantine.js';
import { describeEachDialect, nothingToClean } from '../../support/sql-dialects.js';
import { describeKeyQuarantineContract, InMemoryAuditLog, InMemoryKeyQuarantine } from 'wallet-vault/testing';

describeEachDialect((d) =>
  // `other`: another deployment, so a database of its own.
  describeKeyQuarantineContract(d.name, async () => {
    const [one, two] = await Promise.all([d.open(), d.open()]);
    return {
      quarantine: new SqlKeyQuarantine(one.sql),
      auditLog: new SqlAuditLog(one.sql),
      other: new SqlKeyQuarantine(two.sql),
      cleanup: async () => void (await Promise.all([one.cleanup(), two.cleanup()])),
    };
  }),
);

describeKeyQuarantineContract('in-memory (test twin)', async () => {
  const auditLog = new InMemoryAuditLog();
  return { quarantine: new InMemoryKeyQuarantine(undefined, auditLog), auditLog, other: new InMemoryKeyQuarantine(), cleanup: nothingToClean };
});
