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

describe('wallet-vault serve on a pure-JavaScript secp256k1', () => {
  let dir: string;
  let preload: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-native-'));
    preload = path.join(dir, 'break-secp256k1-binding.cjs');
    await writeFile(preload, BREAK_SECP256K1_BINDING);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses to start, saying why and what to do', async () => {
    const r = await runCli(['serve'], { VAULT_DATA_DIR: path.join(dir, 'data'), PORT: '0', NODE_OPTIONS: `--require ${preload}` });
    expect(r.stderr).toMatch(/the native binding of secp256k1 did not load.*not constant-time.*Refusing to start.*npm rebuild secp256k1/);
    expect(r.code).toBe(2);
  });
});
