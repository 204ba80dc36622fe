import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFileKeyStore } from 'wallet-vault/keystores/local-file';

/**
 * An application passes its master key as an option; it never set VAULT_MASTER_KEY. A mismatch must
 * name the option it passed, or its author looks for an environment variable that does not exist.
 */
describe('localFileKeyStore with the wrong master key', () => {
  let dir: string;
  const keysDir = () => path.join(dir, 'keys');
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-master-option-'));
    const first = localFileKeyStore({ keysDir: keysDir(), masterKeyHex: 'ab'.repeat(32), signingThread: false });
    await first.create();
    await first.close();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('names masterKeyHex when that is what was passed', async () => {
    const store = localFileKeyStore({ keysDir: keysDir(), masterKeyHex: 'cd'.repeat(32), signingThread: false });
    try {
      const error = await store.ping().then(() => null, (e: Error) => e);
      expect(error?.message).toMatch(/master key mismatch: the masterKeyHex passed to localFileKeyStore is not the key that wrapped/);
      expect(error?.message).not.toContain('VAULT_MASTER_KEY');
    } finally {
      await store.close();
    }
  });

  it('names masterKey when the key was passed as bytes', async () => {
    const store = localFileKeyStore({ keysDir: keysDir(), masterKey: new Uint8Array(32).fill(7), signingThread: false });
    try {
      const error = await store.ping().then(() => null, (e: Error) => e);
      expect(error?.message).toMatch(/master key mismatch: the masterKey passed to localFileKeyStore/);
      expect(error?.message).not.toContain('VAULT_MASTER_KEY');
    } finally {
      await store.close();
    }
  });

  it('accepts the right key', async () => {
    const store = localFileKeyStore({ keysDir: keysDir(), masterKeyHex: 'AB'.repeat(32), signingThread: false });
    try {
      await expect(store.ping()).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
