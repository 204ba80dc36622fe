import { type Command, InvalidArgumentError } from 'commander';
import type { AuditRecord } from '../../src/ports/audit-log.port.js';
import { fail, print } from './output.js';

const withPersistence: typeof import('./operator-context.js').withPersistence = async (action) =>
  (await import('./operator-context.js')).withPersistence(action);

const integerOption = (name: string) => (value: string) => {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
  return Number(value);
};

const present = (r: AuditRecord) => ({
  seq: r.seq,
  at: r.at.toISOString(),
  action: r.action,
  actor: r.actor,
  vault: r.vaultId,
  subject: r.subject,
  details: r.details,
  prevHash: r.prevHash,
  hash: r.hash,
});

/** `wallet-vault audit list|verify`: read the hash-chained audit trail and check it. */
export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('read and verify the audit trail');
  audit
    .command('list')
    .description('list audit records in order (oldest first)')
    .option('--vault <vaultId>', 'only records of this vault')
    .option('--after <seq>', 'only records after this sequence number', integerOption('--after'), 0)
    .option('--limit <n>', 'at most this many records (1 to 1000)', integerOption('--limit'), 100)
    .option('--json', 'print JSON')
    .action(async (o: { vault?: string; after: number; limit: number; json?: boolean }) => {
      const { ListAuditRecords } = await import('../../src/application/list-audit-records.use-case.js');
      const records = await withPersistence((c) =>
        c.get(ListAuditRecords).execute({ afterSeq: o.after, limit: o.limit, ...(o.vault ? { vaultId: o.vault } : {}) }),
      );
      const rows = records.map(present);
      print(!!o.json, rows, () =>
        rows
          .map((r) => `${r.seq}  ${r.at}  ${r.action}  ${r.actor}  vault=${r.vault ?? '-'}  subject=${r.subject ?? '-'}  ${JSON.stringify(r.details)}`)
          .join('\n') || '(no audit records)',
      );
    });
  audit
    .command('verify')
    .description('check the whole chain: sequence without gaps, links and hashes; exits 1 when broken')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const { VerifyAuditChain } = await import('../../src/application/verify-audit-chain.use-case.js');
      const verdict = await withPersistence((c) => c.get(VerifyAuditChain).execute());
      if (verdict.ok) {
        print(!!o.json, verdict, () =>
          verdict.head
            ? `audit chain intact: ${verdict.records} records, head seq ${verdict.head.seq} hash ${verdict.head.hash}`
            : 'audit chain intact: no records yet',
        );
        return;
      }
      if (o.json) print(true, verdict, () => '');
      fail(`audit chain broken at seq ${verdict.brokenSeq}: ${verdict.problem} (${verdict.records} records before it are intact)`, 1, 'AUDIT_CHAIN_BROKEN');
    });
}
