import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalFileKeyStore } from '../../adapters/keystore/local-file/local-file.key-store.js';
import { CHECK_FILE, masterKeyCheck, readCheck, verifyMasterKey } from '../../adapters/keystore/local-file/master-key-check.js';
import { resolveMasterKey } from '../../adapters/keystore/local-file/master-key.js';

describe('the master key check value in the key directory', () => {
  let keysDir: string;
  beforeEach(async () => {
    keysDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-check-'));
  });
  afterEach(async () => {
    await rm(keysDir, { recursive: true, force: true });
  });

  it('is an HMAC of the key, not the key', () => {
    const key = Buffer.alloc(32, 7);
    expect(masterKeyCheck(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(masterKeyCheck(key)).not.toContain(key.toString('hex'));
    expect(masterKeyCheck(key)).not.toBe(masterKeyCheck(Buffer.alloc(32, 8)));
  });

  it('instances starting at once with different keys on an empty directory: exactly one key is accepted', async () => {
    const keys = Array.from({ length: 6 }, () => randomBytes(32));
    const problems = await Promise.all(keys.map((k) => verifyMasterKey(keysDir, k, { kind: 'env' })));
    expect(problems.filter((p) => p === null)).toHaveLength(1);
    const winner = keys[problems.indexOf(null)]!;
    expect(await readCheck(keysDir)).toBe(masterKeyCheck(winner));
  });

  it('a directory from before check values gets one only from a key that opens its key files', async () => {
    const right = randomBytes(32);
    await new LocalFileKeyStore({ keysDir, masterKey: right }).create();
    await unlink(path.join(keysDir, CHECK_FILE));
    expect(await verifyMasterKey(keysDir, randomBytes(32), { kind: 'file', path: '/srv/data/master.key' })).toMatch(
      /^master key mismatch: \/srv\/data\/master\.key is not the key/,
    );
    expect(existsSync(path.join(keysDir, CHECK_FILE))).toBe(false);
    expect(await verifyMasterKey(keysDir, right, { kind: 'env' })).toBeNull();
    expect(await readCheck(keysDir)).toBe(masterKeyCheck(right));
  });

  it('VAULT_MASTER_KEY beside a master.key holding the same key is used, and says the file should go', async () => {
    const hex = randomBytes(32).toString('hex');
    await writeFile(path.join(keysDir, 'master.key'), `${hex}\n`);
    expect(await resolveMasterKey({ dataDir: keysDir, masterKeyHex: hex.toUpperCase() })).toMatchObject({ source: 'env', fileAlsoPresent: true });
    await expect(resolveMasterKey({ dataDir: keysDir, masterKeyHex: 'ef'.repeat(32) })).rejects.toThrow(/VAULT_MASTER_KEY and .*master\.key hold different keys/);
  });
});
