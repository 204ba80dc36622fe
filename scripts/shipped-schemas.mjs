#!/usr/bin/env node
// `node scripts/shipped-schemas.mjs [--until <commit>]`: writes test/fixtures/shipped-schemas/, the
// databases every build of main left, for the upgrade tests (test/contract/shipped-schemas.test.ts).
// Run once; the output is committed and never regenerated for commits already there.
//
// For each first-parent commit of main up to --until (default 23d9637, main when migrations got names)
// whose migration list (sqlite.migration-steps.ts, postgres.migration-steps.ts, or before the split the
// dialect's .migrations.ts, read with `git show`) gives a migration list, or
// a way of recording it, not seen before, it runs that list on a new SQLite file and a new PostgreSQL
// database (VAULT_TEST_POSTGRES_URL, else postgres://postgres@127.0.0.1:5432/postgres), records the
// versions as that build did (SQLite PRAGMA user_version; PostgreSQL schema_migrations before a65c9b1,
// wallet_vault_migrations from it), adds a little data as the build's operator would have (an account,
// a vault, an API key whose secret the tests know, a wallet, a signature and, from schema 2, two audit
// records in a valid chain) and dumps it: `sqlite3 .dump` with the user_version, `pg_dump --inserts`.
// A build whose list departs from today's (a migration edited after it shipped, or renumbered at a
// merge) also gets a dump of its database after a later build migrated it, the next longer one and the
// last one, as an operator who kept upgrading has it. lists.json holds every list by its migrations'
// checksums (and their SQL once each), for tests that replay other sequences of builds.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'test', 'fixtures', 'shipped-schemas');
const untilAt = process.argv.indexOf('--until');
const until = untilAt > 0 ? process.argv[untilAt + 1] : '23d9637';
const ADMIN_URL = process.env.VAULT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
const show = (commit, file) => {
  try {
    return git('show', `${commit}:${file}`);
  } catch {
    return null;
  }
};
const checksum = (sql) => createHash('sha256').update(sql, 'utf8').digest('hex');

// The list's file of each dialect, newest name first (the migrator and its steps were one file until the split).
const FILES = {
  sqlite: ['adapters/persistence/sqlite/sqlite.migration-steps.ts', 'adapters/persistence/sqlite/sqlite.migrations.ts'],
  postgres: ['adapters/persistence/postgres/postgres.migration-steps.ts', 'adapters/persistence/postgres/postgres.migrations.ts'],
};
const ROWS_FILES = ['adapters/persistence/sql/rows.ts', 'adapters/persistence/shared/rows.ts'];

/**
 * The migration list of a version of the file: the array literal, evaluated with the one constant the
 * lists ever interpolated (FOUND_BY_SUBJECT, read from that commit's rows.ts). Entries are strings
 * before migrations had names, `{ name, sql }` after.
 */
function migrationList(commit, text) {
  const start = text.search(/const MIGRATIONS: readonly \w+\[\] = \[/);
  if (start < 0) throw new Error(`${commit}: no migration list`);
  const open = text.indexOf('= [', start) + 2;
  const body = text.slice(open, text.indexOf('\n];', open) + 2);
  const rows = ROWS_FILES.map((f) => show(commit, f)).find((t) => t !== null) ?? '';
  const constant = /export const FOUND_BY_SUBJECT = ("[^\n]*");/.exec(rows)?.[1];
  const list = new Function('FOUND_BY_SUBJECT', `return ${body};`)(constant === undefined ? undefined : JSON.parse(constant));
  return list.map((entry) => (typeof entry === 'string' ? entry : entry.sql));
}

/** The distinct builds of one dialect: the first commit of each list and way of recording versions. */
function builds(dialect) {
  const found = new Map();
  for (const commit of git('rev-list', '--first-parent', '--reverse', until).trim().split('\n')) {
    const [split, before] = FILES[dialect].map((f) => show(commit, f));
    const text = split ?? before;
    if (text === null) continue;
    const list = migrationList(commit, text);
    const records = dialect === 'sqlite' ? 'user_version' : split !== null || text.includes("'wallet_vault_migrations'") ? 'wallet_vault_migrations' : 'schema_migrations';
    const key = `${records} ${list.map(checksum).join(' ')}`;
    const [short, date, subject] = git('log', '-1', '--format=%h%n%cs%n%s', commit).trim().split('\n');
    const seen = found.get(key);
    // The last commit that still had this list: the builds from `commit` to `last` made the same database.
    if (seen) seen.last = short;
    else found.set(key, { commit: short, last: short, date, subject: subject.slice(0, 100), list, records });
  }
  return [...found.values()];
}

// What the fixtures hold besides the schema: the API key's secret is known, so a test can authenticate with it.
const FIXTURE = {
  account: 'fixture-account',
  vault: '0190a000-0000-7000-8000-000000000001',
  apiKeyId: 'f1f1f1f1f1f1f1f1',
  apiKeySecret: 'shipped-schema-fixture-secret-0123456789abc',
  wallet: '0190a000-0000-7000-8000-000000000002',
  walletAddress: '0x1111111111111111111111111111111111111111',
  submissionHash: `0x${'5a'.repeat(32)}`,
  at: new Date('2026-11-20T12:00:00.000Z'),
};

/** Two audit records chained as the vault chains them (src/domain/audit-chain.ts: sha256 over the record's fields and the previous hash). */
function auditRecords() {
  const records = [];
  let prev = '0'.repeat(64);
  for (const [seq, action, subject, details] of [
    [1, 'vault.created', FIXTURE.vault, { name: 'fixture vault' }],
    [2, 'api-key.created', FIXTURE.apiKeyId, {}],
  ]) {
    const detailsJson = JSON.stringify(details);
    const hash = createHash('sha256').update(JSON.stringify([seq, prev, action, FIXTURE.at.toISOString(), 'operator', FIXTURE.vault, subject, detailsJson])).digest('hex');
    records.push({ seq, action, subject, detailsJson, prev, hash });
    prev = hash;
  }
  return records;
}

/** The data, as statements with `$n` parameters and their values; instants as the dialect stores them. */
function dataStatements(version, instant) {
  const t = instant(FIXTURE.at);
  const f = FIXTURE;
  const statements = [
    ['INSERT INTO accounts (id, created) VALUES ($1, $2)', [f.account, t]],
    ['INSERT INTO vaults (id, account_id, name, created) VALUES ($1, $2, $3, $4)', [f.vault, f.account, 'fixture vault', t]],
    ['INSERT INTO api_keys (id, vault_id, secret_hash, created, revoked) VALUES ($1, $2, $3, $4, NULL)', [f.apiKeyId, f.vault, checksum(f.apiKeySecret), t]],
    [
      'INSERT INTO wallets (id, account_id, vault_id, name, address, key_store, key_ref, created, updated, expires, version) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, 1)',
      [f.wallet, f.account, f.vault, 'fixture wallet', f.walletAddress, 'local', 'fixture-key-ref', t, t],
    ],
    [
      'INSERT INTO signatures (submission_hash, vault_id, wallet_id, wallet_address, chain, contract, sender, selector, created, transaction_hash, submitted) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL)',
      [f.submissionHash, f.vault, f.wallet, f.walletAddress, 'local', '0x5fbdb2315678afecb367f032d93f642f64180aa3', '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc', '0x40c10f19', t],
    ],
  ];
  if (version >= 2) {
    for (const r of auditRecords()) {
      statements.push([
        'INSERT INTO audit_log (seq, at, actor, vault_id, subject, action, details, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        [r.seq, t, 'operator', f.vault, r.subject, r.action, r.detailsJson, r.prev, r.hash],
      ]);
    }
  }
  return statements;
}

/** A database of one dialect that a sequence of builds migrated, as each build's runner did. */
const DIALECTS = {
  sqlite: {
    async create() {
      const dir = mkdtempSync(path.join(tmpdir(), 'shipped-schema-'));
      const file = path.join(dir, 'vault.db');
      const db = new Database(file);
      return {
        version: () => db.pragma('user_version', { simple: true }),
        async apply(build, from) {
          for (let v = from; v < build.list.length; v++) {
            db.exec(build.list[v]);
            db.pragma(`user_version = ${v + 1}`);
          }
        },
        async insert(statements) {
          for (const [sql, values] of statements) db.prepare(sql.replace(/\$\d+/g, '?')).run(...values);
        },
        async dump() {
          db.close();
          const text = execFileSync('sqlite3', [file, '.dump'], { encoding: 'utf8' });
          const version = new Database(file, { readonly: true });
          const v = version.pragma('user_version', { simple: true });
          version.close();
          rmSync(dir, { recursive: true, force: true });
          return `${text}PRAGMA user_version = ${v};\n`;
        },
      };
    },
    instant: (d) => d.getTime(),
  },
  postgres: {
    async create() {
      const name = `wallet_vault_shipped_${randomBytes(4).toString('hex')}`;
      await admin((c) => c.query(`CREATE DATABASE ${name}`));
      const url = new URL(ADMIN_URL);
      url.pathname = `/${name}`;
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      let records = null;
      let version = 0;
      return {
        version: () => version,
        async apply(build, from) {
          if (records !== null && records !== build.records) throw new Error('a path across the two ways of recording versions is not replayed here');
          records = build.records;
          await client.query(`CREATE TABLE IF NOT EXISTS ${records} (version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())`);
          for (let v = from; v < build.list.length; v++) {
            await client.query('BEGIN');
            await client.query(build.list[v]);
            await client.query(`INSERT INTO ${records} (version, applied) VALUES ($1, $2)`, [v + 1, FIXTURE.at]);
            await client.query('COMMIT');
          }
          version = build.list.length;
        },
        async insert(statements) {
          for (const [sql, values] of statements) await client.query(sql, values);
        },
        async dump() {
          await client.end();
          try {
            const text = execFileSync('pg_dump', ['--inserts', '--no-owner', '--no-privileges', '--no-comments', '--dbname', url.toString()], { encoding: 'utf8' });
            // \restrict and \unrestrict are psql's (with a random key each run): the tests load the dump with plain queries.
            return text.replace(/^\\(un)?restrict .*\n/gm, '').replace(/^-- Dumped (from|by) .*\n/gm, '');
          } finally {
            await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
          }
        },
      };
    },
    instant: (d) => d,
  },
};

async function admin(work) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Runs `path` (builds, oldest first) on a new database of `dialect`, the data added after the first, and dumps it. */
async function replay(dialect, steps) {
  const db = await DIALECTS[dialect].create();
  for (const [i, build] of steps.entries()) {
    await db.apply(build, db.version());
    if (i === 0) await db.insert(dataStatements(build.list.length, DIALECTS[dialect].instant));
  }
  return db.dump();
}

/** Whether `build`'s list departs from `last`'s: an entry that is not last's entry of the same number. */
const departs = (build, last) => build.list.some((sql, i) => checksum(sql) !== checksum(last.list[i] ?? ''));

rmSync(out, { recursive: true, force: true });
const index = [];
const lists = {};
for (const dialect of ['sqlite', 'postgres']) {
  mkdirSync(path.join(out, dialect), { recursive: true });
  const all = builds(dialect);
  const last = all.at(-1);
  const sql = {};
  for (const b of all) for (const s of b.list) sql[checksum(s)] = s;
  lists[dialect] = { sql, builds: all.map((b) => ({ commit: b.commit, last: b.last, date: b.date, records: b.records, migrations: b.list.map(checksum) })) };
  const paths = all.map((b) => [b]);
  for (const [i, b] of all.entries()) {
    if (!departs(b, last)) continue;
    const later = all.slice(i + 1).filter((c) => c.list.length > b.list.length);
    for (const c of new Set([later[0], later.at(-1)])) if (c !== undefined) paths.push([b, c]);
  }
  for (const steps of paths) {
    const made = (s) => (s.last === s.commit ? s.commit : `${s.commit}..${s.last}`);
    const file = `${dialect}/${String(steps.at(-1).list.length).padStart(2, '0')}-${steps.map(made).join('-then-')}.sql`;
    writeFileSync(path.join(out, file), await replay(dialect, steps));
    index.push({
      dialect,
      file,
      version: steps.at(-1).list.length,
      records: steps[0].records,
      builds: steps.map((s) => ({ commit: s.commit, last: s.last, date: s.date, subject: s.subject, version: s.list.length })),
      // Every migration that ran, in order (a later build runs only the entries past the version it found).
      ran: steps.flatMap((s, k) => s.list.slice(k === 0 ? 0 : steps[k - 1].list.length).map(checksum)),
    });
    console.log(file);
  }
}
writeFileSync(path.join(out, 'index.json'), `${JSON.stringify({ until: git('rev-parse', '--short', until).trim(), fixture: FIXTURE, dumps: index }, null, 2)}\n`);
writeFileSync(path.join(out, 'lists.json'), `${JSON.stringify(lists, null, 2)}\n`);
