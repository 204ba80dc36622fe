import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliJson } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { describeEachBackend, type Target } from '../support/backends.js';
import { sqlSessionOn } from '../support/sql-session.js';

/** One request over a connection from `localAddress` (any 127.x address is this host on Linux). */
function requestFrom(localAddress: string, url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers, localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end();
  });
}

interface ListedRecord {
  action: string;
  vault: string | null;
  details: { source: string; count: number; vaults: string | null };
}

/** A well-formed UUID that names no vault. */
const UNKNOWN_VAULT = '0190f5a0-0000-7000-8000-000000000000';
/** Path ids that are not vault ids (percent-encoded as sent). */
const MALFORMED_IDS = ['%00', 'a'.repeat(300), 'no-such-vault', `${UNKNOWN_VAULT}0`, "'%20OR%20'1'='1", '%E2%80%AE', '..%2F..'];

/**
 * Issue 20, section 5, as the attacks: every backend, requests from several client addresses (127.x),
 * and what the audit trail says once the interval's summary is written.
 */
describeEachBackend('authentication state and the audit trail', (backend) => {
  let s: Target;
  const db = () => s.database;

  beforeAll(async () => {
    // An interval longer than any run: the summary is written by the flush at shutdown.
    s = await backend.start({ authRefusedSummaryMs: 3_600_000 });
  });
  const sqlSession = () => sqlSessionOn(s.dataDir, db()?.url);
  afterAll(async () => {
    await s?.close();
  });

  it('a wallet name with a control character is a 400 naming the field, on create and on rename', async () => {
    const { vaultId, api } = await s.vaultWithKey('names');
    for (const name of ['nul\u0000here', 'bell\u0007', 'line\nbreak', 'c1\u0085', 'del\u007f']) {
      const created = await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name });
      expect(created.status, JSON.stringify(name)).toBe(400);
      expect(created.body).toEqual({ success: false, error: expect.stringMatching(/^name: must not contain control characters/), code: 'INVALID_ARGUMENT' });
    }
    const wallet = (await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'fine' })).body.data;
    const renamed = await api.put(`/api/v1/vaults/${vaultId}/wallets/${wallet.address}`, { name: 'x\u0000' });
    expect(renamed.status).toBe(400);
    expect(renamed.body.error).toMatch(/^name: must not contain control characters/);
    expect((await api.get(`/api/v1/vaults/${vaultId}/wallets/${wallet.address}`)).body.data.name).toBe('fine');
  });

  it('an API key revoked or deleted by SQL is refused on every instance, on the next requests after the change', async () => {
    const vaultId = (await s.createVault({ name: 'revoked by SQL' })).id;
    // PostgreSQL: a second instance on the same database; SQLite: one process owns the file.
    const other = db() ? await s.peer() : undefined;
    const sql = await sqlSession();
    try {
      // Times are stored as they are by each adapter: timestamptz, or milliseconds in SQLite.
      for (const change of ['UPDATE api_keys SET revoked = ? WHERE id = ?', 'DELETE FROM api_keys WHERE id = ?']) {
        const { apiKey, id } = await s.createApiKey(vaultId);
        const statusOn = (server: Target) => async () => (await client(server.url, apiKey).get(`/api/v1/vaults/${vaultId}/status`)).status;
        const instances = other ? [s, other] : [s];
        // Answered on every instance (from its cache after the first request).
        for (const server of instances) for (let i = 0; i < 3; i++) expect(await statusOn(server)()).toBe(200);
        expect(await sql.run(change, change.startsWith('UPDATE') ? [db() ? new Date() : Date.now(), id] : [id])).toBe(1);
        if (!db()) {
          expect(await statusOn(s)()).toBe(401); // SQLite: data_version moved, the very next request
          continue;
        }
        // Every request before the change was answered; polled, not slept: the 401s follow the change.
        for (const server of instances) await expect.poll(statusOn(server)).toBe(401);
      }
    } finally {
      await sql.close();
      await other?.close();
    }
  });

  it(
    'path ids that are not vault ids get the refusal of an unknown vault, and the summary of the interval keeps every source',
    async () => {
      const vaultId = (await s.createVault({ name: 'attacked' })).id;
      const { apiKey } = await s.createApiKey(vaultId);
      const bearer = { authorization: `Bearer ${apiKey}` };
      const at = (id: string) => `${s.url}/api/v1/vaults/${id}/status`;

      // The innocent source: anonymous requests on the existing vault, refused and counted.
      for (let i = 0; i < 3; i++) expect((await requestFrom('127.0.0.2', at(vaultId))).status).toBe(401);
      // The refusals of an unknown (well-formed) vault, with no key and with a valid key of another vault.
      const unknownAnonymous = await requestFrom('127.0.0.9', at(UNKNOWN_VAULT));
      const unknownKeyed = await requestFrom('127.0.0.9', at(UNKNOWN_VAULT), bearer);
      expect([unknownAnonymous.status, unknownKeyed.status]).toEqual([401, 401]);

      // Each malformed id from a source of its own: the same answers as the unknown vault.
      const sources = MALFORMED_IDS.map((_, i) => `127.0.1.${i + 1}`);
      for (const [i, id] of MALFORMED_IDS.entries()) {
        expect(await requestFrom(sources[i]!, at(id)), id).toEqual(unknownAnonymous);
        expect(await requestFrom(sources[i]!, at(id), bearer), id).toEqual(unknownKeyed);
      }
      // The sign route (its own fast path, which decodes the segment itself) answers the same.
      const sign = await client(s.url, apiKey).post('/api/v1/vaults/%00/sign', {});
      expect({ status: sign.status, body: sign.body }).toEqual(unknownKeyed);

      await s.stop(); // flushes the summary (the last test of the file: the server stays stopped)
      const env = { VAULT_DATA_DIR: s.dataDir, ...(db() ? { VAULT_DATABASE_URL: db()!.url } : {}) };
      const records = (await cliJson<ListedRecord[]>(['audit', 'list', '--limit', '1000'], env)).filter((r) => r.action === 'auth.refused');
      const bySource = new Map(records.map((r) => [r.details.source, r]));
      expect(bySource.get('127.0.0.2')).toMatchObject({ vault: vaultId, details: { count: 3, vaults: vaultId } });
      expect(bySource.get('127.0.0.9')).toMatchObject({ vault: null, details: { count: 2, vaults: null } });
      for (const source of sources) expect(bySource.get(source), source).toMatchObject({ vault: null, details: { count: 2, vaults: null } });
    },
    60_000,
  );
});
