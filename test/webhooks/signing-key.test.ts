import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVault } from '../../adapters/main/create-vault.js';
import { client } from '../support/http-client.js';
import { inMemoryPersistence } from '../support/in-memory.persistence.js';
import { startTestServer } from '../support/test-server.js';

describe('the webhook signing key', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-webhook-key-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is the configured Ed25519 key when VAULT_WEBHOOK_SIGNING_KEY names one, and nothing is kept in the database', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const file = path.join(dir, 'webhook-key.pem');
    await writeFile(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const server = await startTestServer({ env: { VAULT_WEBHOOK_SIGNING_KEY: file } });
    try {
      const jwks = (await client(server.url).get('/.well-known/wallet-vault-webhook-keys')).body;
      expect(jwks.keys.map((k: { x: string }) => k.x)).toEqual([(publicKey.export({ format: 'jwk' }) as { x: string }).x]);
      const db = new Database(path.join(server.dataDir, 'vault.db'), { readonly: true });
      expect(db.prepare('SELECT count(*) AS n FROM webhook_signing_key').get()).toEqual({ n: 0 });
      db.close();
    } finally {
      await server.stop();
    }
  });

  it('is generated once and kept when none is configured: the same key after a restart', async () => {
    const first = await startTestServer();
    const keys = (await client(first.url).get('/.well-known/wallet-vault-webhook-keys')).body;
    await first.stop({ keepData: true });
    const second = await startTestServer({ dataDir: first.dataDir });
    try {
      expect((await client(second.url).get('/.well-known/wallet-vault-webhook-keys')).body).toEqual(keys);
    } finally {
      await second.stop();
      await rm(first.dataDir, { recursive: true, force: true });
    }
  });

  it.each([
    ['a missing file', async () => path.join(dir, 'absent.pem'), /VAULT_WEBHOOK_SIGNING_KEY: cannot read .*absent\.pem \(ENOENT\)/],
    [
      'a P-256 key',
      async () => {
        const file = path.join(dir, 'p256.pem');
        await writeFile(file, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
        return file;
      },
      /VAULT_WEBHOOK_SIGNING_KEY: .*p256\.pem is a ec key; webhooks are signed with Ed25519/,
    ],
    [
      'no key at all',
      async () => {
        const file = path.join(dir, 'text.pem');
        await writeFile(file, 'not a key');
        return file;
      },
      /VAULT_WEBHOOK_SIGNING_KEY: .*text\.pem is not a PEM private key/,
    ],
  ])('stops the start naming the variable for %s', async (_, make, message) => {
    await expect(startTestServer({ env: { VAULT_WEBHOOK_SIGNING_KEY: await make() } })).rejects.toThrow(message);
  });

  it('is refused by createVault unless it is an Ed25519 PKCS#8 PEM', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await expect(createVault({ persistence: inMemoryPersistence(), jobs: false, webhooks: { signingKey: rsa } })).rejects.toThrow(/webhooks\.signingKey: must be an Ed25519 private key/);
  });
});
