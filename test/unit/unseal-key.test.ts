import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sealKey, unsealKey } from '../../adapters/keystore/local-file/key-file.js';
import { LocalFileKeyStore } from '../../adapters/keystore/local-file/local-file.key-store.js';
import { generatePrivateKey } from '../../adapters/keystore/shared/secp256k1.js';

/** Every buffer a decipher handed out (update's and final's output): the plaintext copies to account for. */
const plaintexts = vi.hoisted(() => [] as Buffer[]);

vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  const record = (b: Buffer) => (plaintexts.push(b), b);
  const createDecipheriv = ((...args: Parameters<typeof crypto.createDecipheriv>) => {
    const decipher = crypto.createDecipheriv(...args);
    const update = decipher.update.bind(decipher) as (data: Buffer) => Buffer;
    const final = decipher.final.bind(decipher) as () => Buffer;
    Object.assign(decipher, { update: (data: Buffer) => record(update(data)), final: () => record(final()) });
    return decipher;
  }) as typeof crypto.createDecipheriv;
  return { ...crypto, default: { ...crypto, createDecipheriv }, createDecipheriv };
});

const allZero = (b: Uint8Array) => b.every((x) => x === 0);
/** The decipher's buffers that still hold a byte, other than `kept` (the one returned to the caller). */
const leftBehind = (kept?: Buffer) => plaintexts.filter((b) => b !== kept && !allZero(b));

const REF = '0x' + '1f'.repeat(20);

describe('unsealKey leaves no plaintext copy but the key it returns', () => {
  const master = randomBytes(32);
  let privateKey: Buffer;
  let sealed: Buffer;
  beforeEach(() => {
    privateKey = generatePrivateKey();
    sealed = sealKey(master, REF, privateKey);
    plaintexts.length = 0;
  });

  it('opening a file: only the returned key holds it', () => {
    const key = unsealKey(master, REF, sealed)!;
    expect(key.equals(privateKey)).toBe(true);
    expect(plaintexts.length).toBeGreaterThan(0);
    expect(leftBehind(key)).toEqual([]);
  });

  it('a file whose tag was tampered with: refused, and the bytes decrypted before the tag failed (the key itself) are zeroed', () => {
    const tampered = Buffer.from(sealed);
    tampered[20]! ^= 1;
    expect(unsealKey(master, REF, tampered)).toBeNull();
    // What update() gave before final() refused the tag is the private key: the master key is right.
    expect(plaintexts.some((b) => b.length === 32)).toBe(true);
    expect(leftBehind()).toEqual([]);
  });

  it('a file under another master key or another name: refused, nothing left', () => {
    expect(unsealKey(randomBytes(32), REF, sealed)).toBeNull();
    expect(unsealKey(master, '0x' + '2e'.repeat(20), sealed)).toBeNull();
    expect(leftBehind()).toEqual([]);
  });
});

describe('the local store zeroes every unsealed key once it is done with it', () => {
  let keysDir: string;
  const masterKey = randomBytes(32);
  beforeEach(async () => {
    keysDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-unseal-'));
  });
  afterEach(async () => {
    await rm(keysDir, { recursive: true, force: true });
  });

  async function walletIn(dir: string): Promise<string> {
    const creator = new LocalFileKeyStore({ keysDir: dir, masterKey, signingThread: false });
    const { keyRef } = await creator.create();
    await creator.close();
    plaintexts.length = 0;
    return keyRef;
  }

  it.each([
    ['a cache of no entries', { cacheSize: 0 }],
    ['a cache of no time', { cacheTtlMs: 0 }],
  ])('with %s, right after the sign', async (_label, cache) => {
    const keyRef = await walletIn(keysDir);
    const store = new LocalFileKeyStore({ keysDir, masterKey, signingThread: false, ...cache });
    await store.sign(keyRef, randomBytes(32));
    // The check at open unseals too (a directory's first key file); every copy counts.
    expect(plaintexts.length).toBeGreaterThan(0);
    expect(leftBehind()).toEqual([]);
    await store.close();
  });

  it('with a cache, once closed', async () => {
    const keyRef = await walletIn(keysDir);
    const store = new LocalFileKeyStore({ keysDir, masterKey, signingThread: false });
    await store.sign(keyRef, randomBytes(32));
    expect(leftBehind()).toHaveLength(1);
    await store.close();
    expect(leftBehind()).toEqual([]);
  });

  it('two signs loading one key at once both sign: the second load does not zero the key the first is signing with', async () => {
    const keyRef = await walletIn(keysDir);
    const store = new LocalFileKeyStore({ keysDir, masterKey, signingThread: true });
    try {
      const signatures = await Promise.all(Array.from({ length: 8 }, () => store.sign(keyRef, randomBytes(32))));
      expect(signatures.every((s) => !allZero(s.r))).toBe(true);
      // One key kept; the duplicates were zeroed as they arrived.
      expect(leftBehind()).toHaveLength(1);
    } finally {
      await store.close();
    }
    expect(await readFile(path.join(keysDir, `${keyRef}.key`))).toHaveLength(64);
  });
});
