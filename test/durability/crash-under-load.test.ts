import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliJson, spawnServer, migrateStore } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { recoverWithStore } from '../support/recover-with-store.js';
import { startTestServer } from '../support/test-server.js';
import { SIGNATURE_PARAM as SIG, MINT_ABI as MINT } from '../support/sign-request.js';

const CONNECTIONS = 48;

describe('SIGKILL under mixed load (creates and signs at high concurrency)', () => {
  it('loses no acknowledged wallet and no record of an acknowledged signature, in the signature log or the audit chain', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-crash-load-'));
    const env = { VAULT_DATA_DIR: dataDir };
    try {
      await migrateStore(env);
      const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'crash-load'], env);
      const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], env);
      const base = `/api/v1/vaults/${vault.id}`;
      const server = await spawnServer(env);
      const api = client(server.url, apiKey);
      const signers: string[] = [];
      for (let i = 0; i < 4; i++) signers.push((await api.post(`${base}/wallets`, { name: `signer ${i}` })).body.data.address);

      const wallets: { id: string; address: string; name: string }[] = [];
      const signatures: { submissionHash: string; wallet: string; amount: string }[] = [];
      let killed = false;
      let n = 0;
      const worker = async (w: number) => {
        while (!killed) {
          const i = n++;
          try {
            if (i % 3 === 0) {
              const r = await api.post(`${base}/wallets`, { name: `load ${i}` });
              if (r.status === 200) wallets.push(r.body.data);
              else if (!killed) throw new Error(`create answered ${r.status}`);
            } else {
              const signer = signers[(w + i) % signers.length]!;
              const amount = String(i);
              const r = await api.post(`${base}/sign`, {
                chain: 'local',
                contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
                sender: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
                uniq: `0x${'cd'.repeat(32)}`,
                signer,
                abi: MINT,
                args: ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8', amount],
              });
              if (r.status === 200) signatures.push({ submissionHash: r.body.data.submissionHash, wallet: signer, amount });
              else if (!killed) throw new Error(`sign answered ${r.status}`);
            }
          } catch (error) {
            if (killed) return; // the connection died with the server
            throw error;
          }
        }
      };
      const workers = Array.from({ length: CONNECTIONS }, (_, w) => worker(w));
      const failed = Promise.race(workers).then(() => new Error('a client stopped before the kill'), (e: unknown) => e);
      const enough = (async () => {
        while (!killed && (wallets.length < 120 || signatures.length < 240)) await new Promise((r) => setTimeout(r, 10));
      })();
      const problem = await Promise.race([enough.then(() => undefined), failed]);
      if (problem) throw new Error(`${String(problem)}\n${server.output()}`);
      killed = true;
      await server.kill('SIGKILL');
      await Promise.allSettled(workers);

      const restarted = await startTestServer({ dataDir });
      try {
        const check = client(restarted.url, apiKey);
        for (const w of wallets) {
          const r = await check.get(`${base}/wallets/${w.address}`);
          expect(r.status, w.address).toBe(200);
          expect(r.body.data).toMatchObject({ id: w.id, name: w.name });
        }
        for (const s of signatures) {
          const r = await check.get(`${base}/submissions/${s.submissionHash}`);
          expect(r.status, s.submissionHash).toBe(200);
          expect(r.body.data).toMatchObject({ submissionHash: s.submissionHash, wallet: s.wallet, vault: vault.id });
        }
        for (const w of wallets.slice(0, 10)) expect(await recoverWithStore(restarted, vault.id, w.address)).toBe(w.address);
      } finally {
        await restarted.stop({ keepData: true });
      }
      // Every answered signature is also in the audit chain, and the chain the kill interrupted verifies.
      expect(await cliJson<{ ok: boolean }>(['audit', 'verify', '--json'], env)).toMatchObject({ ok: true });
      const issued = new Set<string>();
      for (let after = 0; ; ) {
        const page = await cliJson<{ seq: number; action: string; subject: string | null }[]>(
          ['audit', 'list', '--vault', vault.id, '--after', String(after), '--limit', '1000', '--json'],
          env,
        );
        if (page.length === 0) break;
        for (const r of page) if (r.action === 'signature.issued' && r.subject) issued.add(r.subject);
        after = page.at(-1)!.seq;
      }
      for (const s of signatures) expect(issued.has(s.submissionHash), s.submissionHash).toBe(true);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 300_000); // a bound on a hang only: the load, the kill and the checks take longer on a busy 2-core machine
});
