import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Container } from 'inversify';
import { OPERATOR } from '../../src/application/audit/audit-actor.js';
import { VerifyAuditChain } from '../../src/application/audit/verify-audit-chain.use-case.js';
import type { AuditLog } from '../../src/ports/audit-log.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { DatabaseDump, DumpedTables } from '../../src/ports/database-dump.port.js';
import { readCurrentSplit, SPLIT_FILE } from '../keystore/local-file/current-split.js';
import { publishFileOnce } from '../keystore/local-file/durable-file.js';
import { wrappedRefOfFileName } from '../keystore/local-file/key-file.js';
import { MASTER_KEY_FILE, MasterKeyError, readMasterKeyFile } from '../keystore/local-file/master-key.js';
import { CHECK_FILE, hasWrappedKeys, ROTATION_FILE, verifyMasterKey } from '../keystore/local-file/master-key-check.js';
import { combineShares } from '../keystore/local-file/master-key-shares.js';
import { ConfigError, loadConfig, type AppConfig } from '../main/config.js';
import { recordMaintenance } from '../main/maintenance-audit.js';
import { TOKENS } from '../main/tokens.js';
import { migrateStore } from '../main/vault-from-config.js';
import { openBackup, sealBackup, type BackupPayload } from './backup-file.js';
import { readShareFiles } from './master-key-split.js';
import { withPersistence } from './operator-context.js';
import { CliRefusal } from './output.js';

export interface BackupOutcome {
  readonly backup: string;
  readonly file: string;
  readonly dialect: string;
  readonly tables: number;
  readonly rows: number;
  readonly keyFiles: number;
  readonly auditHead: { readonly seq: number; readonly hash: string } | null;
  readonly summary: string;
}

export interface RestoreOutcome extends BackupOutcome {
  readonly from: string;
  readonly into: string;
  /** `audit verify` of the restored trail, its new `backup.restored` record included. */
  readonly auditVerified: { readonly records: number; readonly head: { readonly seq: number; readonly hash: string } | null };
}

/**
 * The master key a backup is made or opened with: the threshold of its shares (`--share-file`, the
 * existing combination: one split, each index once, checked against the split's key check), else
 * VAULT_MASTER_KEY, else `<dataDir>/master.key`. It is held in this process only and zeroed by the caller.
 */
async function masterKeyOf(config: AppConfig, shareFiles: readonly string[]): Promise<{ key: Buffer; from: string }> {
  if (shareFiles.length > 0) {
    const held = await readShareFiles(shareFiles);
    try {
      const first = held[0]!;
      if (held.length < first.threshold) throw new CliRefusal(`--share-file: ${held.length} share(s) given, split ${first.split} needs ${first.threshold}`, 'SHARES_SHORT');
      const key = await combineShares(held);
      if (key === null) throw new CliRefusal('--share-file: the shares do not reconstruct the key of their split (a share was altered)', 'SHARES_WRONG_KEY');
      return { key, from: `the shares of split ${first.split}` };
    } finally {
      for (const share of held) share.share.fill(0);
    }
  }
  const file = path.join(config.dataDir, MASTER_KEY_FILE);
  try {
    if (config.masterKeyHex !== undefined) return { key: Buffer.from(config.masterKeyHex, 'hex'), from: 'VAULT_MASTER_KEY' };
    const key = await readMasterKeyFile(file);
    if (key !== null) return { key, from: file };
  } catch (error) {
    throw error instanceof MasterKeyError ? new ConfigError(error.message) : error;
  }
  throw new ConfigError(`no master key: VAULT_MASTER_KEY is not set, ${file} does not exist and no --share-file was given (with VAULT_SEAL=shamir, give the threshold of the custodians' shares, one --share-file each)`);
}

function dumpOf(container: Container): DatabaseDump {
  const dump = container.get<DatabaseDump | undefined>(TOKENS.DATABASE_DUMP);
  if (dump === undefined) throw new CliRefusal('the configured persistence cannot be copied (it has no database dump)', 'BACKUP_UNSUPPORTED');
  return dump;
}

/** The local store's files: key files, HD seeds, the check value and the current split (temp files are not). */
async function readKeyFiles(keysDir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const names = await readdir(keysDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  if (names.includes(ROTATION_FILE)) throw new CliRefusal(`${keysDir} is in the middle of a master key rotation: finish it (wallet-vault keys rotate-master) before a backup`, 'ROTATION_UNFINISHED');
  for (const name of names.sort()) {
    if (wrappedRefOfFileName(name) === undefined && name !== CHECK_FILE && name !== SPLIT_FILE) continue;
    const file = path.join(keysDir, name);
    if (!(await stat(file)).isFile()) continue;
    files[name] = (await readFile(file)).toString('base64');
  }
  return files;
}

function auditHeadOf(tables: DumpedTables): { seq: number; hash: string } | null {
  const log = tables.audit_log;
  if (!log || log.rows.length === 0) return null;
  const seqAt = log.columns.indexOf('seq');
  const hashAt = log.columns.indexOf('hash');
  let head: { seq: number; hash: string } | null = null;
  for (const row of log.rows) {
    const seq = Number(row[seqAt]);
    if (head === null || seq > head.seq) head = { seq, hash: String(row[hashAt]) };
  }
  return head;
}

const rowCount = (tables: DumpedTables) => Object.values(tables).reduce((n, t) => n + t.rows.length, 0);

/**
 * `wallet-vault backup create --out FILE`: every table of the configured database, read from one
 * snapshot through the persistence's DatabaseDump, and the local store's files, encrypted into FILE
 * (0600, published only where no file is), then recorded (`backup.created`). The master key is checked
 * against the key directory first: a backup no key of this vault opens is never written.
 */
export async function createBackup(outArg: string, shareFiles: readonly string[]): Promise<BackupOutcome> {
  const config = loadConfig();
  const keysDir = path.join(config.dataDir, 'keys');
  const { key, from } = await masterKeyOf(config, shareFiles);
  try {
    // A directory without key files (a store that keeps none here) has nothing to check the key against.
    const source = shareFiles.length > 0 ? ({ kind: 'shares' } as const) : config.masterKeyHex !== undefined ? ({ kind: 'env' } as const) : ({ kind: 'file', path: path.join(config.dataDir, MASTER_KEY_FILE) } as const);
    const problem = (await hasWrappedKeys(keysDir)) ? await verifyMasterKey(keysDir, key, source) : null;
    if (problem !== null) throw new CliRefusal(`${problem}; no backup was written`, 'MASTER_KEY_MISMATCH');
    const file = path.resolve(outArg);
    return await withPersistence(async (c) => {
      const dump = dumpOf(c);
      const tables = await dump.export();
      const keyFiles = await readKeyFiles(keysDir);
      const payload: BackupPayload = { tables, keyFiles, auditHead: auditHeadOf(tables) };
      const { bytes, header } = sealBackup(key, dump.dialect, payload, c.get<Clock>(TOKENS.CLOCK).now());
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      if (!(await publishFileOnce(file, bytes))) throw new CliRefusal(`--out: ${file} already exists; choose a new file name, nothing was written`, 'BACKUP_EXISTS');
      const counts = { tables: Object.keys(tables).length, rows: rowCount(tables), keyFiles: Object.keys(keyFiles).length };
      const head = payload.auditHead;
      await recordMaintenance(c, 'backup.created', OPERATOR, { backup: header.backup, dialect: dump.dialect, ...counts, auditSeq: head?.seq ?? 0, auditHash: head?.hash ?? null });
      return {
        backup: header.backup,
        file,
        dialect: dump.dialect,
        ...counts,
        auditHead: head,
        summary:
          `backup ${header.backup} written to ${file} (0600): ${counts.rows} rows of ${counts.tables} tables (${dump.dialect}), ${counts.keyFiles} key-store files, ` +
          `audit head ${head ? `seq ${head.seq}` : 'empty'}; encrypted under a key derived from the master key (${from}): keep the key (or the threshold of its shares) apart from the file`,
      };
    });
  } finally {
    key.fill(0);
  }
}

/**
 * `wallet-vault backup restore --file FILE`: checks the file against the master key (given as for
 * create) before anything is written, then, into a database that holds nothing yet (migrated here when
 * new) and a key directory without key files, writes the key-store files and every table (one
 * transaction), records `backup.restored` and verifies the whole audit trail.
 */
export async function restoreBackup(fileArg: string, shareFiles: readonly string[]): Promise<RestoreOutcome> {
  const config = loadConfig();
  const file = path.resolve(fileArg);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new CliRefusal(`--file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'BACKUP_UNREADABLE');
  }
  const { key } = await masterKeyOf(config, shareFiles);
  let opened: ReturnType<typeof openBackup>;
  try {
    opened = openBackup(key, bytes);
  } finally {
    key.fill(0);
  }
  const { header, payload } = opened;
  const keysDir = path.join(config.dataDir, 'keys');
  const present = (await readdir(keysDir).catch(() => [] as string[])).filter((n) => wrappedRefOfFileName(n) !== undefined || n === CHECK_FILE);
  if (present.length > 0) {
    throw new CliRefusal(`${keysDir} already holds key-store files (${present.slice(0, 3).join(', ')}): restore into a fresh data directory; nothing was restored`, 'RESTORE_TARGET_NOT_EMPTY');
  }
  await migrateStore(config);
  return withPersistence(async (c) => {
    const dump = dumpOf(c);
    const occupied = await dump.occupied();
    if (occupied.length > 0) {
      throw new CliRefusal(`the configured database already holds rows (${occupied.slice(0, 5).join(', ')}): restore into an empty database; nothing was restored`, 'RESTORE_TARGET_NOT_EMPTY');
    }
    await mkdir(keysDir, { recursive: true, mode: 0o700 });
    const names = Object.keys(payload.keyFiles);
    for (const name of names) {
      if (wrappedRefOfFileName(name) === undefined && name !== CHECK_FILE && name !== SPLIT_FILE) throw new CliRefusal(`the backup names a file that is not a key-store file (${name}); nothing was restored`, 'BACKUP_INVALID');
    }
    for (const name of names) {
      if (!(await publishFileOnce(path.join(keysDir, name), Buffer.from(payload.keyFiles[name]!, 'base64')))) {
        throw new CliRefusal(`${path.join(keysDir, name)} appeared meanwhile: restore into a fresh data directory`, 'RESTORE_TARGET_NOT_EMPTY');
      }
    }
    const done = await dump.import(payload.tables);
    const head = payload.auditHead;
    const counts = { tables: done.tables, rows: done.rows, keyFiles: names.length };
    await recordMaintenance(c, 'backup.restored', OPERATOR, { backup: header.backup, from: header.dialect, into: dump.dialect, ...counts, auditSeq: head?.seq ?? 0, auditHash: head?.hash ?? null });
    const verdict = await new VerifyAuditChain(c.get<AuditLog>(TOKENS.AUDIT_LOG)).execute(head ? { checkpoint: head } : {});
    if (!verdict.ok) throw new CliRefusal(`restored, but the audit trail does not verify: ${verdict.problem} (seq ${verdict.brokenSeq})`, 'AUDIT_CHAIN_BROKEN');
    const split = await readCurrentSplit(keysDir).catch(() => null);
    return {
      backup: header.backup,
      file,
      dialect: header.dialect,
      from: header.dialect,
      into: dump.dialect,
      ...counts,
      auditHead: head,
      auditVerified: { records: verdict.records, head: verdict.head },
      summary:
        `backup ${header.backup} (${header.created}, ${header.dialect}) restored into ${dump.dialect}: ${counts.rows} rows of ${counts.tables} tables, ${counts.keyFiles} key-store files; ` +
        `audit chain intact: ${verdict.records} records, head seq ${verdict.head?.seq ?? 0}` +
        (split ? `; the key directory is sealed by split ${split.split} (${split.threshold} of ${split.shares}): start with VAULT_SEAL=shamir and unseal with its shares` : ''),
    };
  });
}
