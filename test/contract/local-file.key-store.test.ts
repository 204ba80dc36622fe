import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { computeAddress, hexlify, recoverAddress } from 'ethers';
import { afterEach, describe, expect, it } from 'vitest';
import { keyLabelOf } from '../../adapters/keystore/local-file/key-file.js';
import { LocalFileKeyStore } from '../../adapters/keystore/local-file/local-file.key-store.js';
import { rotateMasterKey } from '../../adapters/keystore/local-file/master-key-rotation.js';
import { resolveMasterKey } from '../../adapters/keystore/local-file/master-key.js';
import { describeKeyStoreContract } from 'wallet-vault/testing';

const tempDir = () => mkdtemp(path.join(tmpdir(), 'wallet-vault-keys-'));

describeKeyStoreContract('local (AES-256-GCM files)', async () => {
  const dir = await tempDir();
  return {
    store: new LocalFileKeyStore({ keysDir: path.join(dir, 'keys'), masterKey: randomBytes(32) }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describeKeyStoreContract('local with the unwrapped-key cache off', async () => {
  const dir = await tempDir();
  return {
    store: new LocalFileKeyStore({ keysDir: path.join(dir, 'keys'), masterKey: randomBytes(32), cacheSize: 0 }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('local key store specifics', () => {
  const dirs: string[] = [];
  const fresh = async () => {
    const dir = await tempDir();
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it('writes key files 0600 in a 0700 directory, never in plain text', async () => {
    const dir = await fresh();
    const keysDir = path.join(dir, 'keys');
    const store = new LocalFileKeyStore({ keysDir, masterKey: randomBytes(32) });
    const key = await store.create();
    const file = path.join(keysDir, `${key.keyRef}.key`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(keysDir)).mode & 0o777).toBe(0o700);
    expect(key.keyRef).toBe(computeAddress(hexlify(key.publicKey)).toLowerCase());
    expect((await readFile(file)).length).toBe(64);
  });

  it('a new instance on the same directory (a restart) signs with the same key', async () => {
    const dir = await fresh();
    const masterKey = randomBytes(32);
    const first = new LocalFileKeyStore({ keysDir: dir, masterKey });
    const key = await first.create();
    await first.close();
    const second = new LocalFileKeyStore({ keysDir: dir, masterKey });
    const digest = randomBytes(32);
    const sig = await second.sign(key.keyRef, digest);
    expect(recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v }).toLowerCase()).toBe(key.keyRef);
  });

  it('a key file copied under another wallet name fails authentication', async () => {
    const dir = await fresh();
    const masterKey = randomBytes(32);
    const store = new LocalFileKeyStore({ keysDir: dir, masterKey, cacheSize: 0 });
    const a = await store.create();
    const b = await store.create();
    await copyFile(path.join(dir, `${a.keyRef}.key`), path.join(dir, `${b.keyRef}.key`));
    await expect(store.sign(b.keyRef, randomBytes(32))).rejects.toThrow(/failed authentication/);
  });

  it('a tampered file or a wrong master key fails authentication without revealing anything', async () => {
    const dir = await fresh();
    const store = new LocalFileKeyStore({ keysDir: dir, masterKey: randomBytes(32), cacheSize: 0 });
    const key = await store.create();
    const wrong = new LocalFileKeyStore({ keysDir: dir, masterKey: randomBytes(32) });
    // The directory's check value tells a wrong key from a damaged file; neither message carries key material.
    await expect(wrong.sign(key.keyRef, randomBytes(32))).rejects.toThrow(/^key store local: master key mismatch: VAULT_MASTER_KEY is not the key/);
    const file = path.join(dir, `${key.keyRef}.key`);
    const bytes = await readFile(file);
    bytes[40] = bytes[40]! ^ 1;
    await writeFile(file, bytes);
    await expect(store.sign(key.keyRef, randomBytes(32))).rejects.toThrow(/^key store local: key file failed authentication$/);
  });

  it('lists only key files older than the cut-off and removes stale temp files', async () => {
    const dir = await fresh();
    const store = new LocalFileKeyStore({ keysDir: dir, masterKey: randomBytes(32) });
    const old = await store.create();
    const recent = await store.create();
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(path.join(dir, `${old.keyRef}.key`), hourAgo, hourAgo);
    const temp = path.join(dir, '.leftover.tmp');
    await writeFile(temp, 'x');
    await utimes(temp, hourAgo, hourAgo);
    const refs = await store.listKeyRefs(new Date(Date.now() - 60_000));
    expect(refs).toEqual([old.keyRef]);
    expect(refs).not.toContain(recent.keyRef);
    await expect(stat(temp)).rejects.toThrow();
  });

  const owner = (deploymentId: string) => ({ accountId: 'acc', vaultId: 'vault-a', walletId: 'w', deploymentId });
  const later = () => new Date(Date.now() + 60_000);

  it("a key's deployment label cannot be edited into another deployment's: the file then fails authentication", async () => {
    const dir = await fresh();
    const store = new LocalFileKeyStore({ keysDir: dir, masterKey: randomBytes(32), cacheSize: 0 });
    const key = await store.create(owner('a'.repeat(32)));
    const file = path.join(dir, `${key.keyRef}.key`);
    const bytes = await readFile(file);
    expect(keyLabelOf(bytes)).toEqual({ deploymentId: 'a'.repeat(32), vaultId: 'vault-a' });
    await writeFile(file, Buffer.from(bytes.toString('latin1').replace('a'.repeat(32), 'b'.repeat(32)), 'latin1'));
    expect(await store.listKeys({ deploymentId: 'b'.repeat(32), createdBefore: later() })).toHaveLength(1);
    await expect(store.sign(key.keyRef, randomBytes(32))).rejects.toThrow(/failed authentication/);
  });

  it('a master key rotation keeps each key file\'s deployment and vault', async () => {
    const dir = await fresh();
    const [currentKey, newKey] = [randomBytes(32), randomBytes(32)];
    const labelled = await new LocalFileKeyStore({ keysDir: dir, masterKey: currentKey }).create(owner('c'.repeat(32)));
    const legacy = await new LocalFileKeyStore({ keysDir: dir, masterKey: currentKey }).create();
    await rotateMasterKey({ keysDir: dir, currentKey, currentSource: { kind: 'env' }, newKey });
    const rotated = new LocalFileKeyStore({ keysDir: dir, masterKey: newKey, cacheSize: 0 });
    expect(await rotated.listKeys({ deploymentId: 'c'.repeat(32), createdBefore: later() })).toEqual([
      { keyRef: labelled.keyRef, address: labelled.keyRef, vaultId: 'vault-a' },
    ]);
    for (const k of [labelled, legacy]) {
      const digest = randomBytes(32);
      const sig = await rotated.sign(k.keyRef, digest);
      expect(recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v }).toLowerCase()).toBe(k.keyRef);
    }
  });

  it("re-wraps a vault's HD seed with the key files: after a rotation the next derived key is the seed's next", async () => {
    const dir = await fresh();
    const [currentKey, newKey] = [randomBytes(32), randomBytes(32)];
    const before = new LocalFileKeyStore({ keysDir: dir, masterKey: currentKey });
    const first = await before.deriveKey!(0, owner('c'.repeat(32)));
    const twin = await before.deriveKey!(1, owner('c'.repeat(32)));
    await before.destroy(twin.keyRef);
    expect(await rotateMasterKey({ keysDir: dir, currentKey, currentSource: { kind: 'env' }, newKey })).toMatchObject({ files: 2, rewrapped: 2 });
    const after = new LocalFileKeyStore({ keysDir: dir, masterKey: newKey, cacheSize: 0 });
    // The same seed under the new key: index 1 derives the key it derived before the rotation.
    expect((await after.deriveKey!(1, owner('c'.repeat(32)))).keyRef).toBe(twin.keyRef);
    expect(first.derivationPath).toBe("m/44'/60'/0'/0/0");
  });
});

describe('master key', () => {
  it('is created once as a 0600 file and reused, also by two processes racing', async () => {
    const dir = await tempDir();
    try {
      const [a, b] = await Promise.all([resolveMasterKey({ dataDir: dir }), resolveMasterKey({ dataDir: dir })]);
      expect(a.key.equals(b.key)).toBe(true);
      expect([a.createdNow, b.createdNow].filter(Boolean)).toHaveLength(1);
      expect((await stat(path.join(dir, 'master.key'))).mode & 0o777).toBe(0o600);
      const again = await resolveMasterKey({ dataDir: dir });
      expect(again).toMatchObject({ source: 'file', createdNow: false });
      expect(again.key.equals(a.key)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('takes VAULT_MASTER_KEY when given and refuses a malformed one by name', async () => {
    const hex = randomBytes(32).toString('hex');
    const r = await resolveMasterKey({ dataDir: '/nonexistent', masterKeyHex: hex });
    expect(r).toMatchObject({ source: 'env' });
    expect(r.key.toString('hex')).toBe(hex);
    await expect(resolveMasterKey({ dataDir: '/nonexistent', masterKeyHex: 'xyz' })).rejects.toThrow(/VAULT_MASTER_KEY/);
  });
});
