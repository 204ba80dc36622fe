import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthSignature } from '../../src/domain/auth-signature.js';
import { client } from '../support/http-client.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const SECRET = 'replay-test-secret-that-is-longer-than-32-characters';

/**
 * The attack: capture one signed Sign request (body and X-Vault-Auth-Signature) and send it again, to
 * the same server after a restart or to a second server on the same data directory (SQLite, one
 * process each, VAULT_WORKERS=1). Accepted nonces are in the database, so both are refused.
 */
describe('a captured signed request, replayed after a restart or to another server', () => {
  let dataDir: string;
  const servers: TestServer[] = [];
  let apiKey: string;
  let base: string;
  let signer: string;

  const start = async () => {
    const s = await startTestServer({ dataDir, env: { VAULT_AUTH_SECRET_KEY: SECRET } });
    servers.push(s);
    return s;
  };
  const capture = () => {
    const raw = JSON.stringify(localSignBody(signer, { args: ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8', String(Math.random()).slice(2)] }));
    return { raw, header: createAuthSignature(Buffer.from(raw), SECRET, new Date()) };
  };
  const send = (s: TestServer, captured: { raw: string; header: string }) =>
    client(s.url, apiKey).raw('POST', `${base}/sign`, { raw: captured.raw, headers: { 'x-vault-auth-signature': captured.header } });

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-replay-'));
    const first = await start();
    const vaultId = (await first.createVault({ name: 'replayed' })).id;
    apiKey = (await first.createApiKey(vaultId)).apiKey;
    base = `/api/v1/vaults/${vaultId}`;
    signer = (await client(first.url, apiKey).post(`${base}/wallets`, { name: 'signer' })).body.data.address;
  });
  afterAll(async () => {
    for (const s of servers) await s.server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is refused by the same server after a restart on the same data directory', async () => {
    const captured = capture();
    expect((await send(servers[0]!, captured)).status).toBe(200);
    await servers[0]!.stop({ keepData: true });
    const restarted = await start();
    const replay = await send(restarted, captured);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatch(/already used/);
  });

  it("attack: the accepted nonce's row deleted from the database: the server that accepted it still refuses the replay", async () => {
    const s = servers.at(-1)!;
    const captured = capture();
    expect((await send(s, captured)).status).toBe(200);
    const db = new Database(path.join(dataDir, 'vault.db'));
    try {
      expect(db.prepare('DELETE FROM auth_nonces').run().changes).toBeGreaterThan(0);
    } finally {
      db.close();
    }
    const replay = await send(s, captured);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatch(/already used/);
  });

  it('is refused by a second server running on the same data directory, either way round', async () => {
    const [one, two] = [servers.at(-1)!, await start()];
    const a = capture();
    expect((await send(one, a)).status).toBe(200);
    expect((await send(two, a)).status).toBe(401);
    const b = capture();
    expect((await send(two, b)).status).toBe(200);
    expect((await send(one, b)).status).toBe(401);
  });
});
