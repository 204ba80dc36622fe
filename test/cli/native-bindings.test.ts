import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBindingBreakers, type BrokenBindings } from '../support/break-native-binding.js';
import { runCli } from '../support/cli.js';

describe('wallet-vault serve on a pure-JavaScript secp256k1 or keccak', () => {
  let dir: string;
  let broken: BrokenBindings;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-native-'));
    broken = await writeBindingBreakers();
  });
  afterAll(async () => {
    await broken.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses to start, saying why and what to do', async () => {
    const r = await runCli(['serve'], { VAULT_DATA_DIR: path.join(dir, 'data'), PORT: '0', NODE_OPTIONS: `--require ${broken.secp256k1}` });
    expect(r.stderr).toMatch(/the native binding of secp256k1 did not load.*not constant-time.*Refusing to start.*npm rebuild secp256k1/);
    expect(r.code).toBe(2);
  });

  it('refuses to start when keccak hashes in JavaScript', async () => {
    const r = await runCli(['serve'], { VAULT_DATA_DIR: path.join(dir, 'data'), PORT: '0', NODE_OPTIONS: `--require ${broken.keccak}` });
    expect(r.stderr).toMatch(/the native binding of keccak did not load.*keccak would hash in JavaScript.*Refusing to start.*npm rebuild keccak/);
    expect(r.code).toBe(2);
  });

  it('runs the operator commands that open no key store, and refuses those that do as a configuration error', async () => {
    const env = { VAULT_DATA_DIR: path.join(dir, 'operator'), NODE_OPTIONS: `--require ${broken.secp256k1}` };
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const created = await runCli(['vaults', 'create', '--name', 'on-a-fallback', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const rewrap = await runCli(['keys', 'rewrap', '--store', 'local'], env);
    expect(rewrap.stderr).toMatch(/createVault: the native binding of secp256k1 did not load.*not constant-time.*npm rebuild secp256k1/);
    expect(rewrap.stderr).not.toMatch(/unexpected error/);
    expect(rewrap.code).toBe(2);
  });
});
