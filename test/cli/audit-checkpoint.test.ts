import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION as POSTGRES_VERSION } from '../../adapters/persistence/postgres/postgres.migration-steps.js';
import { SCHEMA_VERSION as SQLITE_VERSION } from '../../adapters/persistence/sqlite/sqlite.migration-steps.js';
import { checkpointKeyFrom } from '../../src/domain/audit-checkpoint.js';
import { cliJson, migrateStore, runCli, type CliResult } from '../support/cli.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';
import { startTestServer } from '../support/test-server.js';

interface Listed {
  seq: number;
  action: string;
  actor: string;
  vault: string | null;
  details: Record<string, unknown>;
}

/** SQL run directly on the store, as a database writer would (no vault code in between). */
interface Backend {
  readonly name: string;
  open(dataDir: string): Promise<{ env: Record<string, string>; sql(statement: string, values?: unknown[]): Promise<void>; close(): Promise<void> }>;
}

const sqlite: Backend = {
  name: 'SQLite',
  open: async (dataDir) => ({
    env: { VAULT_DATA_DIR: dataDir },
    sql: async (statement, values = []) => {
      const db = new Database(path.join(dataDir, 'vault.db'));
      try {
        db.prepare(statement.replace(/\$\d+/g, '?')).run(...values);
      } finally {
        db.close();
      }
    },
    close: async () => undefined,
  }),
};

const postgres: Backend = {
  name: 'PostgreSQL',
  open: async (dataDir) => {
    const db: TestDatabase = await createTestDatabase();
    return {
      env: { VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: db.url },
      sql: async (statement, values = []) => {
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        try {
          await c.query(statement, values);
        } finally {
          await c.end();
        }
      },
      close: () => db.drop(),
    };
  },
};

/**
 * One schema version back, as an older build left it: a migration applies the last one again. Resolves
 * the current version.
 */
async function setBackOneVersion(backend: Backend, dataDir: string, store: { sql(statement: string, values?: unknown[]): Promise<void> }): Promise<number> {
  if (backend === sqlite) {
    const db = new Database(path.join(dataDir, 'vault.db'));
    db.prepare('DELETE FROM wallet_vault_migrations WHERE version = ?').run(SQLITE_VERSION);
    // Without the columns the last migration adds: its ALTER TABLE would find them there.
    db.exec('ALTER TABLE approvals DROP COLUMN blocked_by; ALTER TABLE approvals DROP COLUMN blocked_code; ALTER TABLE approvals DROP COLUMN blocked_message; ALTER TABLE approvals DROP COLUMN blocked_at;');
    db.pragma(`user_version = ${SQLITE_VERSION - 1}`);
    db.close();
    return SQLITE_VERSION;
  }
  await store.sql('DELETE FROM wallet_vault_migrations WHERE version = $1', [POSTGRES_VERSION]);
  return POSTGRES_VERSION;
}

const jsonError = (r: CliResult) => JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { error: string; code: string };

// Issue 35: `audit checkpoint` signs the head with a key derived from the master key; `audit verify
// --checkpoint` finds any record up to it removed or changed, and refuses a forged checkpoint.
describe.each([sqlite, ...(POSTGRES_AVAILABLE ? [postgres] : [])])('signed audit checkpoints and operator actions on $name', (backend) => {
  let dataDir: string;
  let store: Awaited<ReturnType<Backend['open']>>;
  let env: Record<string, string>;
  const masterKey = randomBytes(32);
  const cli = (...args: string[]) => runCli(args, env);

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-checkpoint-'));
    store = await backend.open(dataDir);
    env = { ...store.env, VAULT_MASTER_KEY: masterKey.toString('hex') };
    await migrateStore(env);
  });
  afterAll(async () => {
    await store?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a migration of an existing database and a master-key rotation are recorded, as the operator', async () => {
    const to = await setBackOneVersion(backend, dataDir, store);
    expect(await migrateStore(env)).toMatchObject({ from: to - 1, to });
    expect(await migrateStore(env)).toMatchObject({ from: to, to });

    const newKeyFile = path.join(dataDir, 'new.key');
    const rotated = await cliJson<{ checkpointKey: string; previousCheckpointKey: string }>(['keys', 'rotate-master', '--new-key-file', newKeyFile], env);
    expect(rotated.previousCheckpointKey).toBe(checkpointKeyFrom(masterKey).publicKey);
    const newKey = Buffer.from((await readFile(newKeyFile, 'utf8')).trim(), 'hex');
    expect(rotated.checkpointKey).toBe(checkpointKeyFrom(newKey).publicKey);

    const trail = await cliJson<Listed[]>(['audit', 'list'], env);
    expect(trail.map((r) => [r.seq, r.action, r.actor, r.vault])).toEqual([
      [1, 'schema.migrated', 'operator', null],
      [2, 'master-key.rotated', 'operator', null],
    ]);
    expect(trail[0]!.details).toEqual({ from: to - 1, to });
    expect(trail[1]!.details).toEqual({ files: 0, rewrapped: 0, newKeyGoesTo: 'VAULT_MASTER_KEY', checkpointKey: rotated.checkpointKey, previousCheckpointKey: rotated.previousCheckpointKey });
    // From here on the new key is the master key, as the summary tells the operator.
    env = { ...env, VAULT_MASTER_KEY: newKey.toString('hex') };
    await rm(newKeyFile);
  });

  it('a checkpoint verifies until a record up to it is changed or removed, naming the first such seq; a forged one is refused', async () => {
    const vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'checked'], env)).id;
    for (let i = 0; i < 4; i++) await cliJson(['api-keys', 'create', '--vault', vaultId], env);
    const head = (await cliJson<{ head: { seq: number; hash: string } }>(['audit', 'verify'], env)).head;
    expect(head.seq).toBe(7);

    const file = path.join(dataDir, 'checkpoint.json');
    const written = await cliJson<{ seq: number; hash: string; publicKey: string; out: string }>(['audit', 'checkpoint', '--out', file], env);
    expect(written).toMatchObject({ seq: 7, hash: head.hash, out: file });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(JSON.parse(text)).toEqual({ version: 1, seq: 7, hash: head.hash, at: expect.any(String), publicKey: checkpointKeyFrom(Buffer.from(env.VAULT_MASTER_KEY!, 'hex')).publicKey, signature: expect.any(String) });
    // The command is an operator action too: recorded after the head it signed.
    const last = (await cliJson<Listed[]>(['audit', 'list', '--after', '7'], env)).map((r) => [r.seq, r.action, r.actor]);
    expect(last).toEqual([[8, 'audit.checkpoint', 'operator']]);
    // Records after the checkpoint are not its business.
    await cliJson(['api-keys', 'create', '--vault', vaultId], env);

    const ok = await cli('audit', 'verify', '--checkpoint', file, '--json');
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, records: 9 });

    // Forged: an edited seq, a checkpoint of another key (refused by default and with the right key named).
    const edited = path.join(dataDir, 'edited.json');
    await writeFile(edited, text.replace('"seq":7', '"seq":5'));
    const refusedEdit = await cli('audit', 'verify', '--checkpoint', edited, '--json');
    expect(refusedEdit.code).toBe(1);
    expect(jsonError(refusedEdit)).toEqual({ code: 'CHECKPOINT_REFUSED', error: expect.stringMatching(/signature does not verify/) });
    const other = checkpointKeyFrom(randomBytes(32));
    const foreign = path.join(dataDir, 'foreign.json');
    await writeFile(foreign, JSON.stringify(other.sign(7, head.hash, new Date().toISOString())));
    const refusedForeign = await cli('audit', 'verify', '--checkpoint', foreign, '--json');
    expect(refusedForeign.code).toBe(1);
    expect(jsonError(refusedForeign)).toEqual({ code: 'CHECKPOINT_REFUSED', error: expect.stringMatching(/not the trusted checkpoint key/) });
    // Signed by that key, but trusted only when the operator names it (as for a checkpoint from before a rotation).
    expect((await cli('audit', 'verify', '--checkpoint', foreign, '--public-key', other.publicKey)).code).toBe(0);
    // Another key given explicitly does not make the real checkpoint pass.
    expect(jsonError(await cli('audit', 'verify', '--checkpoint', file, '--public-key', other.publicKey, '--json')).code).toBe('CHECKPOINT_REFUSED');

    // A record's details changed by SQL: named.
    await store.sql(`UPDATE audit_log SET details = $1 WHERE seq = 4`, ['{"roles":"signer,reader,admin","allowCidrs":null}']);
    const altered = await cli('audit', 'verify', '--checkpoint', file, '--json');
    expect(altered.code).toBe(1);
    expect(JSON.parse(altered.stdout)).toMatchObject({ ok: false, brokenSeq: 4 });
    expect(jsonError(altered)).toEqual({ code: 'AUDIT_CHAIN_BROKEN', error: expect.stringMatching(/^audit chain broken at seq 4: seq 4: its content does not match its hash/) });
    // A broken chain is never signed.
    const refusedSign = await cli('audit', 'checkpoint', '--json');
    expect(refusedSign.code).toBe(1);
    expect(jsonError(refusedSign).error).toMatch(/audit chain broken at seq 4.*no checkpoint is signed over a broken chain/);
  });

  it('the newest records deleted by SQL: a plain verify says intact, the checkpoint names the first missing seq', async () => {
    // A fresh trail for this case (the one above was altered on purpose).
    await store.sql('DELETE FROM audit_log');
    const vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'truncated'], env)).id;
    for (let i = 0; i < 5; i++) await cliJson(['api-keys', 'create', '--vault', vaultId], env);
    const file = path.join(dataDir, 'checkpoint-6.json');
    expect(await cliJson(['audit', 'checkpoint', '--out', file], env)).toMatchObject({ seq: 6 });

    // The last three records of the checkpoint (seq 4 to 6) and everything after it (seq 7, its own record).
    await store.sql('DELETE FROM audit_log WHERE seq >= 4');
    const plain = await cliJson<{ ok: boolean; head: { seq: number } }>(['audit', 'verify'], env);
    expect(plain).toMatchObject({ ok: true, head: { seq: 3 } });
    const truncated = await cli('audit', 'verify', '--checkpoint', file, '--json');
    expect(truncated.code).toBe(1);
    expect(JSON.parse(truncated.stdout)).toMatchObject({ ok: false, brokenSeq: 4, records: 3 });
    expect(jsonError(truncated).error).toMatch(/^audit chain broken at seq 4: seq 4 is missing: the checkpoint covers up to seq 6, the chain ends at seq 3/);
    const human = await cli('audit', 'verify', '--checkpoint', file);
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/audit chain broken at seq 4/);
  });

  it('serve records the migration it applied at start, as the system', async () => {
    const to = await setBackOneVersion(backend, dataDir, store);
    const server = await startTestServer({ dataDir, env });
    try {
      const [last] = (await server.server.vault.listAuditRecords.execute({ afterSeq: 0, limit: 1000 })).slice(-1);
      expect(last).toMatchObject({ action: 'schema.migrated', actor: 'system', vaultId: null, details: { from: to - 1, to } });
    } finally {
      await server.stop({ keepData: true });
    }
  });

  it('refuses a checkpoint file that is not one, and --public-key without --checkpoint, before opening the store', async () => {
    const bad = path.join(dataDir, 'bad.json');
    await writeFile(bad, '{"version":1,"seq":-1}');
    const r = await cli('audit', 'verify', '--checkpoint', bad, '--json');
    expect(r.code).toBe(1);
    expect(jsonError(r)).toEqual({ code: 'INVALID_ARGUMENT', error: 'checkpoint.seq: must be a whole number of at least 0' });
    expect((await cli('audit', 'verify', '--checkpoint', path.join(dataDir, 'none.json'))).code).toBe(2);
    expect((await cli('audit', 'verify', '--public-key', 'abc')).code).toBe(2);
  });
});
