import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAuthSignature } from '../../src/domain/auth-signature.js';
import { cliJson, spawnServer, migrateStore } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { readLocalPrivateKey, TEST_MASTER_KEY } from '../support/local-key.js';
import { startSilentServer } from '../support/silent-server.js';
import { SIGNATURE_PARAM as SIG, MINT_ABI as MINT } from '../support/sign-request.js';

const SECRET = 'log-test-secret-that-is-longer-than-32-characters';

describe('logs at LOG_LEVEL=trace', () => {
  it('carry the request id on every line written while serving a request, and never a key, API key, secret or auth header', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-logs-'));
    const rpc = await startSilentServer();
    const env = {
      VAULT_DATA_DIR: dataDir,
      VAULT_MASTER_KEY: TEST_MASTER_KEY,
      VAULT_AUTH_SECRET_KEY: SECRET,
      VAULT_RPC_URL_SEPOLIA: rpc.url,
      VAULT_OUTBOUND_TIMEOUT_MS: '200',
      LOG_LEVEL: 'trace',
    };
    try {
      await migrateStore(env);
      const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'logs'], env);
      const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], env);
      const server = await spawnServer(env);
      const ids: string[] = [];
      const sent: string[] = [];
      let privateKey = '';
      try {
        const api = client(server.url, apiKey);
        const base = `/api/v1/vaults/${vault.id}`;
        const track = <T extends { headers: Headers }>(r: T) => (ids.push(r.headers.get('x-request-id')!), r);
        const created = track(await api.post(`${base}/wallets`, { name: 'logged' }));
        expect(created.status).toBe(200);
        const address = created.body.data.address as string;
        privateKey = await readLocalPrivateKey(dataDir, TEST_MASTER_KEY, address);
        expect(privateKey).toMatch(/^[0-9a-f]{64}$/);

        const signBody = (chain = 'local') =>
          JSON.stringify({
            chain,
            contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
            sender: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
            uniq: `0x${'ab'.repeat(32)}`,
            signer: address,
            abi: MINT,
            args: ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8', '5'],
          });
        const signWith = async (raw: string, header: string | undefined, key = apiKey) => {
          if (header) sent.push(header);
          const headers: Record<string, string> = { authorization: `Bearer ${key}` };
          if (header) headers['x-vault-auth-signature'] = header;
          return track(await api.raw('POST', `${base}/sign`, { raw, headers }));
        };
        const raw = signBody();
        const header = createAuthSignature(Buffer.from(raw), SECRET, new Date());
        expect((await signWith(raw, header)).status).toBe(200);
        expect((await signWith(raw, header)).status).toBe(401); // replayed
        expect((await signWith(raw, `${header.slice(0, -4)}aaaa`)).status).toBe(401); // wrong hash
        expect((await signWith(raw, undefined)).status).toBe(401); // missing
        const sepolia = signBody('sepolia');
        expect((await signWith(sepolia, createAuthSignature(Buffer.from(sepolia), SECRET, new Date()))).status).toBe(502);
        const wrongKey = `${apiKey.slice(0, -6)}AAAAAA`;
        sent.push(wrongKey);
        expect(track(await client(server.url, wrongKey).get(`${base}/wallets`)).status).toBe(401);
        expect(track(await client(server.url, wrongKey).post(`${base}/sign`, {})).status).toBe(401);
        expect(track(await api.get(`${base}/wallets/${address}`)).status).toBe(200);
        expect(track(await api.post(`${base}/wallets`, { name: '' })).status).toBe(400);
      } finally {
        expect(await server.kill('SIGTERM')).toBe(0);
      }

      const output = server.output();
      const lines = output.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const requestLines = lines.filter((l) => l.msg === 'request' && l.route !== '/healthz'); // the start-up probe
      expect(requestLines.map((l) => l.requestId).sort()).toEqual([...ids].sort());
      // Lines written inside a request (refusals, dependency failures) name the request's id.
      const inside = lines.filter((l) => l.msg === 'request refused' || l.msg === 'dependency failure');
      expect(inside.length).toBeGreaterThanOrEqual(6);
      for (const l of inside) expect(ids).toContain(l.requestId);

      const haystack = output.toLowerCase();
      const secrets = [apiKey, apiKey.slice('wv_'.length + 16 + 1), SECRET, TEST_MASTER_KEY, privateKey, ...sent];
      for (const secret of secrets) expect(haystack).not.toContain(secret.toLowerCase());
    } finally {
      await rpc.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
