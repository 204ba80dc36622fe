import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import type { Container } from 'inversify';
import type { CheckpointVerdict } from '../../src/application/audit/audit-checkpoints.use-case.js';
import type { AuditLog, AuditRecord } from '../../src/ports/audit-log.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { WebhookOutbox } from '../../src/ports/webhook-outbox.port.js';
import type { AuditStreamCursors } from '../../src/ports/audit-stream-cursors.port.js';
import { TOKENS } from '../main/tokens.js';
import { CliRefusal, EXIT, fail, print } from './output.js';

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

/** `wallet-vault audit list|verify|checkpoint`: read the hash-chained audit trail, check it, sign its head. */
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
      const { ListAuditRecords } = await import('../../src/application/audit/list-audit-records.use-case.js');
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
    .command('stream')
    .description("replay the audit stream (VAULT_AUDIT_SYSLOG_URL, VAULT_AUDIT_OTLP_URL): the sinks' cursors set before --from-seq, so the serving instance sends the records from there on again")
    .requiredOption('--from-seq <seq>', 'the first record to send again (1: the whole trail)', integerOption('--from-seq'))
    .option('--sink <sink>', 'syslog or otlp (default: every sink configured in the environment)')
    .option('--json', 'print JSON')
    .action(async (o: { fromSeq: number; sink?: string; json?: boolean }) => {
      if (o.fromSeq < 1) fail('--from-seq must be at least 1', EXIT.USAGE);
      if (o.sink !== undefined && o.sink !== 'syslog' && o.sink !== 'otlp') fail('--sink must be syslog or otlp', EXIT.USAGE);
      const { loadConfig } = await import('../main/config.js');
      const configured = loadConfig().auditStream;
      const sinks = o.sink !== undefined ? [o.sink] : [...(configured?.syslogUrl ? ['syslog'] : []), ...(configured?.otlpUrl ? ['otlp'] : [])];
      if (sinks.length === 0) fail('no audit sink is configured (VAULT_AUDIT_SYSLOG_URL, VAULT_AUDIT_OTLP_URL); name one with --sink', EXIT.USAGE);
      await withPersistence(async (c) => {
        const cursors = c.get<AuditStreamCursors | undefined>(TOKENS.AUDIT_STREAM_CURSORS);
        if (!cursors) throw new CliRefusal('this database keeps no audit stream cursors (run wallet-vault migrate)', 'NO_AUDIT_STREAM');
        for (const sink of sinks) await cursors.write(sink, o.fromSeq - 1);
      });
      print(!!o.json, { sinks, fromSeq: o.fromSeq }, () => `${sinks.join(', ')}: records from seq ${o.fromSeq} on are sent again by the instance streaming, at its next read`);
    });
  audit
    .command('verify')
    .description('check the whole chain: sequence without gaps, links and hashes; with --checkpoint, also that it still reaches a signed checkpoint; exits 1 when broken')
    .option('--checkpoint <file>', 'a checkpoint file (`audit checkpoint --out`, or an audit.checkpoint webhook\'s `checkpoint`): refused unless signed by the checkpoint key; the chain must reach its seq with its hash')
    .option('--public-key <key>', 'the key the checkpoint must be signed with (base64url, a JWK or the JWKS of /.well-known/wallet-vault-audit-checkpoint-keys); default: derived from the current master key (give it for a checkpoint from before a master-key rotation)')
    .option('--json', 'print JSON')
    .action(async (o: { checkpoint?: string; publicKey?: string; json?: boolean }) => {
      if (o.publicKey !== undefined && o.checkpoint === undefined) fail('--public-key: only with --checkpoint', EXIT.USAGE);
      const verdict = o.checkpoint === undefined ? await verifyChain() : await verifyCheckpoint(o.checkpoint, o.publicKey);
      if (verdict.refused !== undefined) fail(verdict.refused, EXIT.REFUSED, 'CHECKPOINT_REFUSED');
      if (verdict.ok) {
        print(!!o.json, verdict, () =>
          verdict.head
            ? `audit chain intact: ${verdict.records} records, head seq ${verdict.head.seq} hash ${verdict.head.hash}${o.checkpoint === undefined ? '' : '; the checkpoint\'s head is in it'}`
            : 'audit chain intact: no records yet',
        );
        return;
      }
      if (o.json) print(true, verdict, () => '');
      fail(`audit chain broken at seq ${verdict.brokenSeq}: ${verdict.problem} (${verdict.records} records before it are intact)`, 1, 'AUDIT_CHAIN_BROKEN');
    });
  audit
    .command('checkpoint')
    .description("verify the chain and sign its head (seq and hash) with the checkpoint key, derived from the master key; keep the file where the database's writers cannot reach it")
    .option('--out <file>', 'write the checkpoint there (0600) instead of to stdout')
    .option('--json', 'print JSON')
    .action(async (o: { out?: string; json?: boolean }) => {
      const [{ AuditCheckpoints }, { OPERATOR }, { checkpointKeyOf }, { loadConfig }] = await Promise.all([
        import('../../src/application/audit/audit-checkpoints.use-case.js'),
        import('../../src/application/audit/audit-actor.js'),
        import('../main/checkpoint-key.js'),
        import('../main/config.js'),
      ]);
      const key = await checkpointKeyOf(loadConfig());
      const checkpoint = await withPersistence((c) => checkpoints(c, AuditCheckpoints).write(key, OPERATOR));
      const text = `${JSON.stringify(checkpoint)}\n`;
      if (o.out === undefined) {
        process.stdout.write(text);
        return;
      }
      const { writeFileDurably } = await import('../keystore/local-file/durable-file.js');
      await writeFileDurably(path.resolve(o.out), text);
      print(!!o.json, { ...checkpoint, out: path.resolve(o.out) }, () => `checkpoint of seq ${checkpoint.seq} (hash ${checkpoint.hash}) signed and written to ${path.resolve(o.out!)}`);
    });
}

type Checkpoints = typeof import('../../src/application/audit/audit-checkpoints.use-case.js');

/** The use case over the container's audit log, clock and outbox (it is not one of the vault's USE_CASES). */
const checkpoints = (c: Container, AuditCheckpoints: Checkpoints['AuditCheckpoints']) =>
  new AuditCheckpoints(c.get<AuditLog>(TOKENS.AUDIT_LOG), c.get<Clock>(TOKENS.CLOCK), c.get<WebhookOutbox | undefined>(TOKENS.WEBHOOK_OUTBOX));

async function verifyChain(): Promise<CheckpointVerdict> {
  const { VerifyAuditChain } = await import('../../src/application/audit/verify-audit-chain.use-case.js');
  return withPersistence((c) => c.get(VerifyAuditChain).execute());
}

/** The checkpoint file read and parsed, and the trusted key, before the store is opened: a bad file or key touches nothing. */
async function verifyCheckpoint(file: string, publicKeyText: string | undefined): Promise<CheckpointVerdict> {
  const [{ AuditCheckpoints }, { parseCheckpoint, parsePublicKey }, { checkpointKeyOf }, { loadConfig }] = await Promise.all([
    import('../../src/application/audit/audit-checkpoints.use-case.js'),
    import('../../src/domain/audit-checkpoint.js'),
    import('../main/checkpoint-key.js'),
    import('../main/config.js'),
  ]);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    fail(`--checkpoint: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, EXIT.USAGE);
  }
  const checkpoint = parseCheckpoint(text);
  let trusted: string;
  if (publicKeyText === undefined) trusted = (await checkpointKeyOf(loadConfig())).publicKey;
  else trusted = parsePublicKey(publicKeyText) ?? fail('--public-key: not an Ed25519 public key (base64url of 32 bytes, a JWK or a JWKS of one key)', EXIT.USAGE);
  return withPersistence((c) => checkpoints(c, AuditCheckpoints).verify(checkpoint, trusted));
}
