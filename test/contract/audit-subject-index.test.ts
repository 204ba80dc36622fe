import { describe, expect, it } from 'vitest';
import { SqlAuditLog } from '../../adapters/persistence/sql/sql.audit-log.js';
import { AUDIT_OF_SUBJECT, SqlConsoleStore } from '../../adapters/persistence/sql/sql.console-store.js';
import { anAuditEvent } from '../../adapters/testing/fixtures.js';
import { describeEachDialect } from '../support/sql-dialects.js';

const SIGN_ACTIONS = ['signature.issued', 'sign.message', 'sign.typed-data', 'sign.transaction', 'sign.authorization'] as const;

/**
 * The console finds an approval's or a proposal's audit records by subject through an index that leaves
 * out the signing records (each sign's would add a random 66-character key to it: about a tenth of a sign's
 * CPU, docs/benchmarks.md). The look-up must still find every record about its subject, and use the index.
 */
describeEachDialect((d) => {
  describe(`${d.name}: the audit records about one subject`, () => {
    it('are found through the partial subject index, which signing records stay out of', async () => {
      const db = await d.open();
      try {
        const log = new SqlAuditLog(db.sql);
        const vaultId = 'vault-1';
        for (const action of SIGN_ACTIONS) await log.append(anAuditEvent({ action, vaultId, subject: 'apr_1' }));
        await log.append(anAuditEvent({ action: 'approval.requested', vaultId, subject: 'apr_1' }));
        await log.append(anAuditEvent({ action: 'approval.voted', vaultId, subject: 'apr_1' }));
        await log.append(anAuditEvent({ action: 'approval.voted', vaultId, subject: 'apr_2' }));
        await log.append(anAuditEvent({ action: 'approval.decided', vaultId: 'vault-2', subject: 'apr_1' }));

        const found = await new SqlConsoleStore(db.sql).auditOf(vaultId, 'apr_1', 10);
        expect(found.map((r) => r.action)).toEqual(['approval.requested', 'approval.voted']);

        const plan = await db.sql.transaction(async (tx) => {
          if (d.name.startsWith('sqlite')) return tx.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${AUDIT_OF_SUBJECT}`, [vaultId, 'apr_1', 10]);
          // An empty-ish table is scanned whatever the indexes: forbid that, to see whether the index can serve.
          await tx.run('SET LOCAL enable_seqscan = off');
          return tx.all<Record<string, string>>(`EXPLAIN ${AUDIT_OF_SUBJECT}`, [vaultId, 'apr_1', 10]);
        });
        expect(JSON.stringify(plan)).toContain('audit_log_by_subject');
      } finally {
        await db.cleanup();
      }
    });
  });
});
