import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

/**
 * What a missing prebuilt binary does: secp256k1's index requires './bindings', which throws, and it
 * silently exports its elliptic fallback instead. A preload makes exactly that require throw.
 */
const BREAK_SECP256K1_BINDING = `
const Module = require('node:module');
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const fromSecp = parent && /[\\\\/]secp256k1[\\\\/][^\\\\/]+$/.test(parent.filename);
  if ((request === './bindings' && fromSecp) || request === 'secp256k1/bindings') throw new Error('simulated: no native binding');
  return load.apply(this, arguments);
};
`;

/**
 * keccak's addon does not load: node-gyp-build, which both keccak's bindings.js and the vault's own
 * keccak256 (src/domain/keccak.ts) load it with from keccak's folder, throws.
 */
const BREAK_KECCAK_ADDON = `
const Module = require('node:module');
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const fromKeccak = parent && /[\\/]keccak[\\/][^\\/]+$/.test(parent.filename);
  if (request === 'node-gyp-build' && fromKeccak) throw new Error('simulated: no native binding');
  return load.apply(this, arguments);
};
`;

describe('wallet-vault serve on a pure-JavaScript secp256k1 or keccak', () => {
  let dir: string;
  let preload: string;
  let keccakPreload: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-native-'));
    preload = path.join(dir, 'break-secp256k1-binding.cjs');
    await writeFile(preload, BREAK_SECP256K1_BINDING);
    keccakPreload = path.join(dir, 'break-keccak-addon.cjs');
    await writeFile(keccakPreload, BREAK_KECCAK_ADDON);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses to start, saying why and what to do', async () => {
    const r = await runCli(['serve'], { VAULT_DATA_DIR: path.join(dir, 'data'), PORT: '0', NODE_OPTIONS: `--require ${preload}` });
    expect(r.stderr).toMatch(/the native binding of secp256k1 did not load.*not constant-time.*Refusing to start.*npm rebuild secp256k1/);
    expect(r.code).toBe(2);
  });

  it('refuses to start when keccak hashes in JavaScript', async () => {
    const r = await runCli(['serve'], { VAULT_DATA_DIR: path.join(dir, 'data'), PORT: '0', NODE_OPTIONS: `--require ${keccakPreload}` });
    expect(r.stderr).toMatch(/the native binding of keccak did not load.*keccak would hash in JavaScript.*Refusing to start.*npm rebuild keccak/);
    expect(r.code).toBe(2);
  });
});
