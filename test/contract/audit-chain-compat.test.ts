import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite.database.js';
import { AUDIT } from '../../adapters/persistence/sql/rows.js';
import { VerifyAuditChain } from '../../src/application/audit/verify-audit-chain.use-case.js';
import { appendChained, prepareAuditEvent } from '../../src/domain/audit-chain.js';
import type { AuditEvent, AuditLog } from '../../src/ports/audit-log.port.js';
import type { SignatureLog } from '../../src/ports/signature-log.port.js';
import { openTestDatabase, POSTGRES_AVAILABLE } from '../support/postgres.js';
import { aSignatureRecord, anAuditEvent } from '../support/wallet-mother.js';
import { SqlAuditLog } from '../../adapters/persistence/sql/sql.audit-log.js';
import { SqlSignatureLog } from '../../adapters/persistence/sql/sql.signature-log.js';
import { postgresSql } from '../../adapters/persistence/postgres/postgres.sql.js';
import { sqliteSql } from '../../adapters/persistence/sqlite/sqlite.sql.js';

// Issue 22 wrote the chain's append once (appendChained). A trail written before that must still verify,
// and the next append must chain on it. The rows below are what the previous code wrote (commit 5afa80c:
// SqliteAuditLog/SqliteSignatureLog and PostgresAuditLog/PostgresSignatureLog appending EVENTS, then one
// signature with its signature.issued event), read back raw: SQLite's values, PostgreSQL's text forms.

const at = (ms: number) => new Date(Date.UTC(2026, 0, 15, 10, 0, 0, ms));
const VAULT = '0190f0c1-7a7b-7c3d-8e9f-0123456789ab';
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const EVENTS: AuditEvent[] = [
  { action: 'vault.created', at: at(0), actor: 'operator', vaultId: VAULT, subject: null, details: { name: 'treasury' } },
  // Keys out of order, integer-like keys, every scalar type.
  { action: 'wallet.created', at: at(1), actor: 'api-key:0123456789abcdef', vaultId: VAULT, subject: WALLET, details: { zeta: 'last', alpha: 1.5, mid: true, none: null, '10': 'ten', '7': 'seven' } },
  // Non-ASCII text and an escaped control character.
  { action: 'auth.refused', at: at(2), actor: 'anonymous', vaultId: null, subject: null, details: { source: '203.0.113.9 \\u0007', count: 3, reasons: 'unknown key: 3', 'ünï': 'çödé ✓ 𝄞' } },
  { action: 'signature.issued', at: at(3), actor: 'api-key:0123456789abcdef', vaultId: VAULT, subject: `0x${'ab'.repeat(32)}`, details: { wallet: WALLET, selector: '0xa9059cbb', chain: 'sepolia', contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3' } },
];
const HEAD = { seq: 4, hash: 'caa9a9a8b81976e077d558e8489b95699b64b416ac6ab6b423c2d0102c4ba5a3' };

const SQLITE_ROWS = [
  [1, 1768471200000, "operator", "0190f0c1-7a7b-7c3d-8e9f-0123456789ab", null, "vault.created", "{\"name\":\"treasury\"}", "0000000000000000000000000000000000000000000000000000000000000000", "9011fec3f5bdb1d3dd8c8c91ae482b34e590bec1645177178daac564a753e273"],
  [2, 1768471200001, "api-key:0123456789abcdef", "0190f0c1-7a7b-7c3d-8e9f-0123456789ab", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "wallet.created", "{\"7\":\"seven\",\"10\":\"ten\",\"alpha\":1.5,\"mid\":true,\"none\":null,\"zeta\":\"last\"}", "9011fec3f5bdb1d3dd8c8c91ae482b34e590bec1645177178daac564a753e273", "a5653a389cf6a925a67d42370ff4b51e024aef5f15aa5316b5025e716efce510"],
  [3, 1768471200002, "anonymous", null, null, "auth.refused", "{\"count\":3,\"reasons\":\"unknown key: 3\",\"source\":\"203.0.113.9 \\\\u0007\",\"ünï\":\"çödé ✓ 𝄞\"}", "a5653a389cf6a925a67d42370ff4b51e024aef5f15aa5316b5025e716efce510", "f9d997591319d7a721e62fe45431ae2e6de9b6cf118fcb32cd51257ff38e4bcc"],
  [4, 1768471200003, "api-key:0123456789abcdef", "0190f0c1-7a7b-7c3d-8e9f-0123456789ab", "0xabababababababababababababababababababababababababababababababab", "signature.issued", "{\"chain\":\"sepolia\",\"contract\":\"0x5FbDB2315678afecb367f032d93F642f64180aa3\",\"selector\":\"0xa9059cbb\",\"wallet\":\"0x70997970C51812dc3A010C7d01b50e0d17dc79C8\"}", "f9d997591319d7a721e62fe45431ae2e6de9b6cf118fcb32cd51257ff38e4bcc", "caa9a9a8b81976e077d558e8489b95699b64b416ac6ab6b423c2d0102c4ba5a3"],
];
const POSTGRES_ROWS = [
  ["1", "2026-01-15 10:00:00+00", "operator", "0190f0c1-7a7b-7c3d-8e9f-0123456789ab", null, "vault.created", "{\"name\":\"treasury\"}", "0000000000000000000000000000000000000000000000000000000000000000", "9011fec3f5bdb1d3dd8c8c91ae482b34e590bec1645177178daac564a753e273"],
  ["2", "2026-01-15 10:00:00.001+00", "api-key:0123456789abcdef", "0190f0c1-7a7b-7c3d-8e9f-0123456789ab", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "wallet.created", "{\"7\":\"seven\",\"10\":\"ten\",\"zeta\":\"last\",\"alpha\":1.5,\"mid\":true,\"none\":null}", "9011fec3f5bdb1d3dd8c8c91ae482b34e590bec1645177178daac564a753e273", "a5653a389cf6a925a67d42370ff4b51e024aef5f15aa5316b5025e716efce510"],
  ["3", "2026-01-15 10:00:00.002+00", "anonymous", null, null, "auth.refused", "{\"source\":\"203.0.113.9 \\\\u0007\",\"count\":3,\"reasons\":\"unknown key: 3\",\"ünï\":\"çödé ✓ 𝄞\"}", "a5653a389cf6a925a67d42370ff4b51e024aef5f15aa5316b5025e716efce510", "f9d997591319d7a721e62fe45431ae2e6de9b6cf118fcb32cd51257ff38e4bcc"],
  ["4", "2026-01-15 10:00:00.003+00", "api-key:0123456789abcdef", "0190f0c1-7a7b-7c3d-8e9f-0123456789ab", "0xabababababababababababababababababababababababababababababababab", "signature.issued", "{\"wallet\":\"0x70997970C51812dc3A010C7d01b50e0d17dc79C8\",\"selector\":\"0xa9059cbb\",\"chain\":\"sepolia\",\"contract\":\"0x5FbDB2315678afecb367f032d93F642f64180aa3\"}", "f9d997591319d7a721e62fe45431ae2e6de9b6cf118fcb32cd51257ff38e4bcc", "caa9a9a8b81976e077d558e8489b95699b64b416ac6ab6b423c2d0102c4ba5a3"],
];

/** Verifies the old trail, appends through the current code (a plain append and a sign), verifies again. */
async function verifiesAndContinues(auditLog: AuditLog, signatureLog: SignatureLog): Promise<void> {
  expect(await new VerifyAuditChain(auditLog).execute()).toEqual({ ok: true, records: 4, head: HEAD });
  await auditLog.append(anAuditEvent({ action: 'wallet.renamed', at: at(4), vaultId: VAULT, details: { from: 'a', to: 'b' } }));
  await signatureLog.record(aSignatureRecord(1, { vaultId: VAULT }), anAuditEvent({ action: 'signature.issued', at: at(5), vaultId: VAULT }));
  const verdict = await new VerifyAuditChain(auditLog).execute();
  expect(verdict).toMatchObject({ ok: true, records: 6 });
  const [fifth] = await auditLog.list({ afterSeq: 4, limit: 1 });
  expect(fifth!.prevHash).toBe(HEAD.hash);
}

describe('an audit trail written before the chain was appended once (issue 22)', () => {
  it('is what appendChained gives for the same events, hash for hash', () => {
    const records = appendChained(null, EVENTS.map(prepareAuditEvent));
    expect(records.map((r) => [r.seq, r.prevHash, r.hash])).toEqual(SQLITE_ROWS.map((r) => [r[0], r[7], r[8]]));
    expect(records.map((r) => r.detailsJson)).toEqual(SQLITE_ROWS.map((r) => r[6]));
  });

  it('verifies on SQLite, and the next appends chain on it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-chain-compat-'));
    const db = openSqliteDatabase({ path: path.join(dir, 'vault.db') });
    try {
      const insert = db.prepare(`INSERT INTO audit_log (${AUDIT.columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      for (const row of SQLITE_ROWS) insert.run(...row);
      const auditLog = new SqlAuditLog(sqliteSql(db));
      await verifiesAndContinues(auditLog, new SqlSignatureLog(sqliteSql(db)));
    } finally {
      db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!POSTGRES_AVAILABLE)('verifies on PostgreSQL, and the next appends chain on it', async () => {
    const { db, cleanup } = await openTestDatabase();
    try {
      for (const row of POSTGRES_ROWS) {
        await db.query(`INSERT INTO audit_log (${AUDIT.columns}) VALUES ($1, $2::timestamptz, $3, $4, $5, $6, $7::jsonb, $8, $9)`, row);
      }
      const auditLog = new SqlAuditLog(postgresSql(db));
      await verifiesAndContinues(auditLog, new SqlSignatureLog(postgresSql(db)));
    } finally {
      await cleanup();
    }
  });
});
