import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AbiCoder, keccak256, recoverAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthSignature } from '../../src/domain/auth-signature.js';
import { cliJson, spawnServer, type ChildServer, migrateStore } from '../support/cli.js';
import { LOCAL_SENDER, LOCAL_UNIQ, MINT_TO, localSignBody } from '../support/sign-request.js';

const SECRET = 'workers-test-secret-of-at-least-32-characters';
const coder = AbiCoder.defaultAbiCoder();
const SELECTOR = keccak256(Buffer.from('mint(address,uint256,(bytes32,bytes32,bytes32,uint8))')).slice(0, 10);

/** One request on a connection of its own: the primary hands each new connection to the next worker. */
function onFreshConnection(url: string, method: string, route: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = http.request(`${url}${route}`, { method, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The pids of the processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text === '' ? [] : text.split(' ').map(Number);
}

describe('VAULT_WORKERS=2: one server, two worker processes', () => {
  let dataDir: string;
  let server: ChildServer;
  let vault: string;
  let headers: Record<string, string>;
  let signer: string;

  beforeAll(async () => {
    // No VAULT_MASTER_KEY: the primary creates the key file once, before the workers start, so a wallet
    // created by one worker can be signed for by the other.
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-workers-'));
    await migrateStore({ VAULT_DATA_DIR: dataDir });
    vault = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'workers'], { VAULT_DATA_DIR: dataDir })).id;
    const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault], { VAULT_DATA_DIR: dataDir });
    headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    server = await spawnServer({ VAULT_DATA_DIR: dataDir, VAULT_WORKERS: '2', VAULT_AUTH_SECRET_KEY: SECRET, LOG_LEVEL: 'info' });
    // /healthz answered from one worker; the primary says when both listen.
    for (let waited = 0; !server.output().includes('wallet-vault workers listening'); waited += 50) {
      if (waited > 10_000) throw new Error(`workers did not all listen: ${server.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(childrenOf(server.child.pid!)).toHaveLength(2);
    const created = await onFreshConnection(server.url, 'POST', `/api/v1/vaults/${vault}/wallets`, headers, JSON.stringify({ name: 'signer' }));
    expect(created.status).toBe(200);
    signer = created.body.data.address;
  }, 60_000);

  afterAll(async () => {
    await server?.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  const signSigned = (raw: string, header: string) =>
    onFreshConnection(server.url, 'POST', `/api/v1/vaults/${vault}/sign`, { ...headers, 'x-vault-auth-signature': header }, raw);

  it('signs on both workers, each signature recovering to the wallet, and /metrics counts them all', async () => {
    const answers = [];
    for (let i = 0; i < 12; i++) {
      const raw = JSON.stringify(localSignBody(signer));
      answers.push(await signSigned(raw, createAuthSignature(Buffer.from(raw), SECRET, new Date())));
    }
    for (const { status, body } of answers) {
      expect(status).toBe(200);
      const sig = body.data.args[2];
      const message = coder.encode(['bytes4', 'address', 'uint256'], [SELECTOR, MINT_TO, 1000n]);
      const digest = keccak256(coder.encode(['bytes32', 'bytes32', 'address', 'bytes'], [LOCAL_UNIQ, sig.nonce, LOCAL_SENDER, message]));
      expect(recoverAddress(digest, { r: sig.r, s: sig.s, v: sig.v })).toBe(signer);
    }
    const signLines = server
      .output()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; route?: string; worker?: number })
      .filter((l) => l.msg === 'request' && l.route === '/api/v1/vaults/:vaultId/sign');
    expect(new Set(signLines.map((l) => l.worker))).toEqual(new Set([0, 1]));

    // Whichever worker answers /metrics, it reports the whole server: all 12 signs, not its own share.
    for (let i = 0; i < 2; i++) {
      const metrics = await onFreshConnection(server.url, 'GET', '/metrics', {});
      expect(metrics.body).toMatch(/wallet_vault_http_requests_total\{method="POST",route="\/api\/v1\/vaults\/:vaultId\/sign",status="200"\} 12\n/);
      // The key store's signatures: the 12, and the wallet's binding its key signed when it was created.
      expect(metrics.body).toMatch(/wallet_vault_signatures_total\{key_store="local"\} 13\n/);
      expect(metrics.body).toMatch(/wallet_vault_info\{version="[^"]+"\} 1\n/);
    }
  }, 60_000);

  it('refuses a replayed X-Vault-Auth-Signature whichever worker the replay reaches', async () => {
    const raw = JSON.stringify(localSignBody(signer));
    const header = createAuthSignature(Buffer.from(raw), SECRET, new Date());
    expect((await signSigned(raw, header)).status).toBe(200);
    // Successive connections alternate between the workers: both get the replay at least once.
    for (let i = 0; i < 4; i++) {
      const replay = await signSigned(raw, header);
      expect(replay.status).toBe(401);
      expect(replay.body.error).toMatch(/replay/i);
    }
  }, 60_000);

  it('restarts a worker that dies, and the other keeps serving meanwhile', async () => {
    const [victim, survivor] = childrenOf(server.child.pid!);
    process.kill(victim!, 'SIGKILL');
    await expect.poll(() => childrenOf(server.child.pid!).includes(victim!), { timeout: 5000 }).toBe(false);
    expect(childrenOf(server.child.pid!)).toContain(survivor);
    for (let i = 0; i < 4; i++) {
      expect((await onFreshConnection(server.url, 'GET', `/api/v1/vaults/${vault}/wallets/${signer}`, headers)).status).toBe(200);
    }
    // The dead process leaves the process table before the primary has handled its exit: wait for the line.
    await expect.poll(() => server.output(), { timeout: 10_000 }).toMatch(/a worker stopped unexpectedly; restarting it/);
    await expect.poll(() => server.output(), { timeout: 10_000 }).toMatch(/restarted worker listening/);
    expect(childrenOf(server.child.pid!)).toHaveLength(2);
    expect(childrenOf(server.child.pid!)).not.toContain(victim);
  }, 60_000);

  it('stops on SIGTERM: every worker drains and the primary exits 0', async () => {
    const workers = childrenOf(server.child.pid!);
    expect(await server.kill('SIGTERM')).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
    expect(server.output().match(/"msg":"wallet-vault stopped"/g)).toHaveLength(2);
  }, 60_000);
});
