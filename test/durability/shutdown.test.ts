import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliJson, spawnServer, migrateStore } from '../support/cli.js';
import { client } from '../support/http-client.js';

/** A request whose body is sent in two parts: it is in flight from the first part until the answer. */
function slowRequest(url: string, method: string, pathname: string, apiKey: string, body: string) {
  const u = new URL(url);
  let finish!: () => void;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path: pathname,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    req.flushHeaders();
    finish = () => req.end(body.slice(half));
  });
  return { answer, finish: () => finish() };
}

const waitFor = async (what: () => boolean, label: string) => {
  for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!what()) throw new Error(`timed out waiting for ${label}`);
};

describe('SIGTERM', () => {
  it('stops accepting, finishes the requests in flight with 200, closes the stores and exits 0', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-sigterm-'));
    const env = { VAULT_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
    try {
      await migrateStore(env);
      const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'drain'], env);
      const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], env);
      const server = await spawnServer(env);
      const base = `/api/v1/vaults/${vault.id}`;
      const signer = (await client(server.url, apiKey).post(`${base}/wallets`, { name: 'signer' })).body.data.address;
      const sign = JSON.stringify({
        chain: 'local',
        contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        sender: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
        uniq: `0x${'ab'.repeat(32)}`,
        signer,
        abi: { type: 'function', name: 'f', inputs: [{ name: 'sig', type: 'tuple', components: [{ name: 'nonce', type: 'bytes32' }, { name: 'r', type: 'bytes32' }, { name: 's', type: 'bytes32' }, { name: 'v', type: 'uint8' }] }] },
        args: [],
      });
      const inFlight = [
        slowRequest(server.url, 'POST', `${base}/wallets`, apiKey, JSON.stringify({ name: 'in flight 1' })),
        slowRequest(server.url, 'POST', `${base}/wallets`, apiKey, JSON.stringify({ name: 'in flight 2' })),
        slowRequest(server.url, 'POST', `${base}/sign`, apiKey, sign),
      ];
      await new Promise((r) => setTimeout(r, 200)); // the first halves have reached the server
      const exited = server.kill('SIGTERM');
      await waitFor(() => server.output().includes('shutting down'), 'the shutdown to begin');

      await expect(fetch(`${server.url}/healthz`)).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
      expect(server.child.exitCode).toBeNull(); // still draining

      for (const r of inFlight) r.finish();
      const answers = await Promise.all(inFlight.map((r) => r.answer));
      for (const a of answers) expect(a.status, a.body).toBe(200);
      const t0 = Date.now();
      expect(await exited).toBe(0);
      // Promptly: not after the client's keep-alive (5 s) or the 10 s drain limit.
      expect(Date.now() - t0).toBeLessThan(4000);
      expect(server.output()).toContain('wallet-vault stopped');

      // What was acknowledged during the drain is there after a restart.
      const again = await spawnServer(env);
      try {
        const names = (await client(again.url, apiKey).get(`${base}/wallets`)).body.data.page.map((w: { name: string }) => w.name);
        expect(names).toEqual(expect.arrayContaining(['in flight 1', 'in flight 2']));
        const hash = JSON.parse(answers[2]!.body).data.submissionHash;
        expect((await client(again.url, apiKey).get(`${base}/submissions/${hash}`)).status).toBe(200);
      } finally {
        await again.kill('SIGTERM');
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
