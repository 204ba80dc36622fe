import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Wallet, type HDNodeWallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_CACHE_TTL_MS } from '../../src/application/signing/policy-cache.js';
import { cliJson, migrateStore, spawnServer, type ChildServer } from '../support/cli.js';
import { startFakeKms, type FakeKms } from '../support/fake-kms.server.js';
import { client, type Reply } from '../support/http-client.js';
import { sharedInstanceEnv } from '../support/shared-instances.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';
import { DOCUMENT, WIDER } from './support.js';

const MAIL = {
  domain: { name: 'Mail', version: '1', chainId: 1, verifyingContract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
  types: { Mail: [{ name: 'contents', type: 'string' }] },
  primaryType: 'Mail',
  message: { contents: 'hello' },
};

/**
 * Issue 35, done when: "A 2-of-3 governed vault on two PostgreSQL instances: a policy change with one
 * signature is not in force on either instance, with two it is on both within the documented time; a
 * freeze by one admin takes effect on both at once." Two compiled servers (`wallet-vault serve`, each its
 * own process and data directory) on one PostgreSQL database, keys in one shared KMS; the votes are
 * ethers signatures sent over HTTP, the freeze `POST …/freeze` with an admin key. Delay 0s: the servers
 * run on the system clock.
 */
describe.skipIf(!POSTGRES_AVAILABLE)('a governed vault on two PostgreSQL instances', () => {
  let db: TestDatabase;
  let kms: FakeKms;
  const dirs: string[] = [];
  const children: ChildServer[] = [];
  const approvers = [Wallet.createRandom(), Wallet.createRandom(), Wallet.createRandom()];

  beforeAll(async () => {
    [db, kms] = await Promise.all([createTestDatabase(), startFakeKms()]);
  });
  afterAll(async () => {
    for (const c of children) await c.kill('SIGTERM').catch(() => undefined);
    await db?.drop();
    await kms?.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  const instanceEnv = () => sharedInstanceEnv(db.url, kms, dirs, 'wallet-vault-governed-');

  /** Asks again until `done` holds, at most `boundMs`: how long it took, or a failure naming the last answer. */
  const within = async (boundMs: number, ask: () => Promise<Reply>, done: (r: Reply) => boolean): Promise<number> => {
    const started = Date.now();
    for (;;) {
      const r = await ask();
      if (done(r)) return Date.now() - started;
      if (Date.now() - started > boundMs) throw new Error(`not within ${boundMs} ms; last answer ${r.status} ${JSON.stringify(r.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('one signature: in force on neither; two: on both within the policy cache time; a freeze on A refuses the next sign on B', async () => {
    const cliEnv = await instanceEnv();
    await migrateStore(cliEnv);
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'governed'], cliEnv);
    const key = async (roles: string) => (await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id, '--roles', roles], cliEnv)).apiKey;
    const [signerKey, approverKey, adminKey] = [await key('signer'), await key('approver'), await key('admin')];
    const file = path.join(dirs[0]!, 'policy.json');
    await writeFile(file, JSON.stringify(DOCUMENT));
    await cliJson(['policies', 'apply', '--vault', vault.id, '--file', file], cliEnv);
    await cliJson(['governance', 'set', '--vault', vault.id, '--required', '2', '--approvers', approvers.map((a) => a.address).join(','), '--delay', '0s'], cliEnv);

    const [a, b] = [await spawnServer(await instanceEnv()), await spawnServer(await instanceEnv())];
    children.push(a, b);
    const base = `/api/v1/vaults/${vault.id}`;
    const wallet: string = (await client(a.url, adminKey).post(`${base}/wallets`, { name: 'w' })).body.data.address;
    const signTyped = (server: ChildServer) => client(server.url, signerKey).post(`${base}/wallets/${wallet}/sign-typed-data`, MAIL);
    /** The policy in force on `server`, read fresh (GET …/governance reloads that instance's copy) and used by a sign. */
    const freshSign = async (server: ChildServer) => {
      expect((await client(server.url, adminKey).get(`${base}/governance`)).body.data.problem).toBeNull();
      return signTyped(server);
    };
    for (const server of [a, b]) expect((await freshSign(server)).body.code).toBe('POLICY_DENIED');

    // The change (typed data allowed), proposed by the operator; signed over HTTP by the approvers' own keys.
    await writeFile(file, JSON.stringify(WIDER));
    const { proposal } = await cliJson<{ proposal: { id: string; documentHash: string } }>(['policies', 'apply', '--vault', vault.id, '--file', file, '--json'], cliEnv);
    const vote = async (server: ChildServer, approver: HDNodeWallet) => {
      const api = client(server.url, approverKey);
      const view = (await api.get(`${base}/proposals/${proposal.id}`)).body.data;
      expect(view.documentHash).toBe(proposal.documentHash);
      return api.post(`${base}/proposals/${proposal.id}/approve`, { signature: await approver.signTypedData(view.typedData.domain, view.typedData.types, view.typedData.message) });
    };

    const first = await vote(a, approvers[0]!);
    expect(first.body.data).toMatchObject({ status: 'pending', approvals: [approvers[0]!.address] });
    for (const server of [a, b]) {
      const r = await freshSign(server);
      expect([r.status, r.body.code], server.url).toEqual([403, 'POLICY_DENIED']);
    }

    const second = await vote(b, approvers[1]!);
    expect(second.body.data.status).toBe('applied');
    // B applied it and uses it at once; A within its policy cache time (POLICY_CACHE_TTL_MS, docs/governance.md).
    expect((await signTyped(b)).status).toBe(200);
    const tookA = await within(3 * POLICY_CACHE_TTL_MS, () => signTyped(a), (r) => r.status === 200);
    expect(tookA).toBeLessThanOrEqual(3 * POLICY_CACHE_TTL_MS);
    for (const server of [a, b]) expect((await client(server.url, adminKey).get(`${base}/governance`)).body.data.hash).toBe(proposal.documentHash);

    // The freeze: one admin key on A, no quorum; the very next sign on B is refused, whatever B's cache holds.
    expect((await signTyped(b)).status).toBe(200);
    const frozen = await client(a.url, adminKey).post(`${base}/freeze`, { reason: 'approver key may be stolen' });
    expect(frozen.body.data).toEqual({ vault: vault.id, frozen: true, freezes: 1 });
    for (const server of [b, a]) {
      const r = await signTyped(server);
      expect([r.status, r.body.code], server.url).toEqual([403, 'VAULT_FROZEN']);
    }
  });
});
