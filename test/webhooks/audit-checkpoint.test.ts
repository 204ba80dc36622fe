import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkpointKeyFrom } from '../../src/domain/audit-checkpoint.js';
import { runCli } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { createTestDatabase, POSTGRES_AVAILABLE } from '../support/postgres.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { documentedVerifier, startReceiver, until } from '../support/webhook-receiver.js';

const BACKENDS = [{ name: 'SQLite', postgres: false }, ...(POSTGRES_AVAILABLE ? [{ name: 'PostgreSQL', postgres: true }] : [])];
const HOUR = 3_600_000;

type VerifyCheckpoint = (text: string, jwks: unknown) => { seq: number; hash: string; publicKey: string };

/** The receiver's checkpoint snippet exactly as docs/webhooks.md shows it (the block after `checkpoint-snippet`). */
async function documentedCheckpointVerifier(): Promise<VerifyCheckpoint> {
  const doc = await readFile(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/webhooks.md'), 'utf8');
  const snippet = /<!-- checkpoint-snippet -->\s*```js\n([\s\S]*?)```/.exec(doc)?.[1];
  if (snippet === undefined) throw new Error('docs/webhooks.md has no checkpoint-snippet block');
  const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-checkpoint-snippet-'));
  await writeFile(path.join(dir, 'verify.mjs'), snippet);
  return ((await import(pathToFileURL(path.join(dir, 'verify.mjs')).href)) as { verifyCheckpoint: VerifyCheckpoint }).verifyCheckpoint;
}

// Issue 35: the server signs the audit head on a schedule (driven here by the test's clock and
// runJobsOnce, never by waiting), records it as audit.checkpoint, and the webhook dispatcher delivers it.
describe.each(BACKENDS)('scheduled audit checkpoints on $name', ({ postgres }) => {
  const cleanups: (() => Promise<void>)[] = [];
  let verifyWebhook: Awaited<ReturnType<typeof documentedVerifier>>;
  let verifyCheckpoint: VerifyCheckpoint;
  beforeAll(async () => {
    [verifyWebhook, verifyCheckpoint] = await Promise.all([documentedVerifier(), documentedCheckpointVerifier()]);
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('writes one per interval when records came since, under the master key; a receiver verifies it with the published key, and audit verify --checkpoint accepts it', async () => {
    const masterKey = randomBytes(32);
    const env: Record<string, string> = {
      VAULT_MASTER_KEY: masterKey.toString('hex'),
      VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS: '3600',
      // The timer never fires during the test: runJobsOnce drives every run.
      VAULT_PURGE_INTERVAL_SECONDS: '86400',
      VAULT_WEBHOOK_POLL_MS: '20',
    };
    if (postgres) {
      const db = await createTestDatabase();
      cleanups.push(() => db.drop());
      env.VAULT_DATABASE_URL = db.url;
    }
    const server: TestServer = await startTestServer({ env });
    cleanups.push(() => server.stop());
    const vault = server.server.vault;
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const checkpointsOf = async () => (await vault.listAuditRecords.execute({ afterSeq: 0, limit: 1000 })).filter((r) => r.action === 'audit.checkpoint');

    await vault.runJobsOnce();
    expect(await checkpointsOf(), 'an empty chain is not signed').toEqual([]);
    const hooked = await server.createVault({ name: 'hooked' });
    await vault.manageWebhooks.add({ vaultId: hooked.id, url: receiver.url });
    await server.createVault({ name: 'no endpoint' });

    await vault.runJobsOnce();
    const [first, ...none] = await checkpointsOf();
    expect(none).toEqual([]);
    // One record, of the vault whose endpoint takes checkpoints, by the system; it signs the head before it.
    expect(first).toMatchObject({ actor: 'system', vaultId: hooked.id, seq: 4 });
    const signed = JSON.parse(first!.details.checkpoint as string) as { seq: number; hash: string; publicKey: string };
    const head = (await vault.listAuditRecords.execute({ afterSeq: 2, limit: 1 }))[0]!;
    expect(signed).toMatchObject({ version: 1, seq: 3, hash: head.hash, publicKey: checkpointKeyFrom(masterKey).publicKey });

    // Nothing new: nothing signed. Something new within the hour: not yet. An hour on: the next one.
    await vault.runJobsOnce();
    expect(await checkpointsOf()).toHaveLength(1);
    await server.createApiKey(hooked.id);
    server.clock.advance(HOUR - 60_000);
    await vault.runJobsOnce();
    expect(await checkpointsOf()).toHaveLength(1);
    server.clock.advance(60_000);
    await vault.runJobsOnce();
    const all = await checkpointsOf();
    expect(all).toHaveLength(2);
    expect(JSON.parse(all[1]!.details.checkpoint as string)).toMatchObject({ seq: 5 });

    await until(() => receiver.deliveries.length >= 2, 'both checkpoints delivered');
    const keys = await client(server.url).get('/.well-known/wallet-vault-audit-checkpoint-keys');
    expect(keys.status).toBe(200);
    expect(keys.body.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: checkpointKeyFrom(masterKey).publicKey, kid: expect.any(String), use: 'sig', alg: 'EdDSA' }]);
    const webhookKeys = (await client(server.url).get('/.well-known/wallet-vault-webhook-keys')).body;
    expect(webhookKeys.keys[0].x, 'a key of its own').not.toBe(keys.body.keys[0].x);
    // Each at its own time (the test's clock moved an hour between them): the window is not what is tested here.
    const events = receiver.deliveries.map((d) => verifyWebhook(d.headers, d.body, webhookKeys, Number(d.headers['webhook-timestamp']) * 1000));
    expect(events.map((e) => [e.type, e.vaultId])).toEqual([
      ['audit.checkpoint', hooked.id],
      ['audit.checkpoint', hooked.id],
    ]);
    const delivered = events.map((e) => verifyCheckpoint(e.data.checkpoint as string, keys.body));
    expect(delivered.map((c) => c.seq)).toEqual([3, 5]);
    // Edited in transit (or by whoever stores it): refused by the same snippet.
    const edited = (events[1]!.data.checkpoint as string).replace('"seq":5', '"seq":4');
    expect(() => verifyCheckpoint(edited, keys.body)).toThrow(/does not verify/);

    // What the receiver kept proves the chain to the operator's command.
    const file = path.join(server.dataDir, 'received-checkpoint.json');
    await writeFile(file, events[1]!.data.checkpoint as string);
    const cliEnv = { ...env, VAULT_DATA_DIR: server.dataDir };
    const verified = await runCli(['audit', 'verify', '--checkpoint', file, '--json'], cliEnv);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true });
    await rm(file);
  });
});
