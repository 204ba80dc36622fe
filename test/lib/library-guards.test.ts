import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import vault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVault, NativeBindingError, VaultOptionsError } from 'wallet-vault';
import { localFileKeyStore } from 'wallet-vault/keystores/local-file';
import { vaultTransitKeyStore } from 'wallet-vault/keystores/vault-transit';
import { sqlitePersistence } from 'wallet-vault/persistence/sqlite';
import { writeBindingBreakers, type BrokenBindings } from '../support/break-native-binding.js';
import { startFakeVault, type FakeVault } from '../support/fake-vault.server.js';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Run in a child process whose secp256k1 or keccak falls back to JavaScript: each of the library's
 * entry points that `serve` builds through, once as an application calls it and once with the opt-out,
 * through the package's public names. Prints what each did.
 */
const PROBE = `
const { createVault } = await import('wallet-vault');
const { localFileKeyStore } = await import('wallet-vault/keystores/local-file');
const { vaultTransitKeyStore } = await import('wallet-vault/keystores/vault-transit');
const { sqlitePersistence } = await import('wallet-vault/persistence/sqlite');
const dir = process.env.PROBE_DIR;
const transit = { address: process.env.TRANSIT_URL, token: process.env.TRANSIT_TOKEN, keyName: 'wallet-vault', allowHttp: true };
const local = (name) => ({ keysDir: dir + '/' + name, masterKeyHex: 'ab'.repeat(32), signingThread: false });
const outcome = {};
async function attempt(name, run) {
  try {
    outcome[name] = await run();
  } catch (error) {
    outcome[name] = { name: error.name, message: error.message };
  }
}
async function vaultOver(options) {
  const persistence = await sqlitePersistence({ path: dir + '/' + Math.random() + '.db' });
  try {
    await (await createVault({ persistence, jobs: false, ...options })).close();
    return 'built';
  } finally {
    await persistence.close();
  }
}
async function signsWith(store) {
  const { keyRef } = await store.create();
  const signature = await store.sign(keyRef, new Uint8Array(32).fill(7));
  await store.close();
  return signature.r.length === 32 && signature.s.length === 32 ? 'signed' : 'no signature';
}
await attempt('createVault', () => vaultOver({}));
await attempt('localFileKeyStore', () => signsWith(localFileKeyStore(local('a'))));
await attempt('vaultTransitKeyStore', () => signsWith(vaultTransitKeyStore(transit)));
await attempt('createVault opted out', () => vaultOver({ allowJavaScriptFallback: true }));
await attempt('localFileKeyStore opted out', () => signsWith(localFileKeyStore({ ...local('b'), allowJavaScriptFallback: true })));
await attempt('vaultTransitKeyStore opted out', () => signsWith(vaultTransitKeyStore({ ...transit, allowJavaScriptFallback: true })));
console.log(JSON.stringify(outcome));
`;

type Outcome = Record<string, string | { name: string; message: string }>;

describe('the library entry points on a pure-JavaScript secp256k1 or keccak, as serve', () => {
  let broken: BrokenBindings;
  let transit: FakeVault;
  let dir: string;
  beforeAll(async () => {
    broken = await writeBindingBreakers();
    transit = await startFakeVault();
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-guards-'));
  });
  afterAll(async () => {
    await transit.close();
    await broken.remove();
    await rm(dir, { recursive: true, force: true });
  });

  async function probe(preload: string): Promise<Outcome> {
    const env = { ...process.env, PROBE_DIR: await mkdtemp(path.join(dir, 'probe-')), TRANSIT_URL: transit.url, TRANSIT_TOKEN: transit.token };
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--require', preload, '--input-type=module', '-e', PROBE], { cwd: root, env }, (error, out, stderr) =>
        error ? reject(new Error(`probe failed: ${stderr}`)) : resolve(out),
      );
    });
    return JSON.parse(stdout) as Outcome;
  }

  it.each([
    ['secp256k1', () => broken.secp256k1, /elliptic, which is not constant-time, so timing can leak private keys/],
    ['keccak', () => broken.keccak, /keccak would hash in JavaScript/],
  ])('on the %s fallback: each refuses, naming the package, the fix and the opt-out; with the opt-out each works', async (pkg, preload, why) => {
    const outcome = await probe(preload());
    for (const entry of ['createVault', 'localFileKeyStore', 'vaultTransitKeyStore']) {
      const refused = outcome[entry] as { name: string; message: string };
      expect(refused.name, entry).toBe('NativeBindingError');
      expect(refused.message).toMatch(new RegExp(`^${entry}: the native binding of ${pkg} did not load`));
      expect(refused.message).toMatch(why);
      expect(refused.message).toContain(`npm rebuild ${pkg}`);
      expect(refused.message).toContain(`pass allowJavaScriptFallback: true to ${entry}`);
    }
    expect(outcome).toMatchObject({
      'createVault opted out': 'built',
      'localFileKeyStore opted out': 'signed',
      'vaultTransitKeyStore opted out': 'signed',
    });
  });

  it('the opt-out is a boolean option, checked like any other', async () => {
    const persistence = await sqlitePersistence({ path: path.join(dir, 'options.db') });
    try {
      const error = await createVault({ persistence, allowJavaScriptFallback: 'yes' as never }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VaultOptionsError);
      expect((error as Error).message).toMatch(/^ {2}allowJavaScriptFallback: /m);
    } finally {
      await persistence.close();
    }
    expect(() => localFileKeyStore({ keysDir: dir, masterKeyHex: 'ab'.repeat(32), allowJavaScriptFallback: 1 as never })).toThrow(/allowJavaScriptFallback: /);
    expect(new NativeBindingError('x')).toMatchObject({ name: 'NativeBindingError' });
  });
});

describe('vaultTransitKeyStore over http://', () => {
  let transit: FakeVault;
  beforeAll(async () => {
    transit = await startFakeVault();
  });
  afterAll(async () => {
    await transit.close();
  });

  it('refuses an http:// address: the token and every unwrapped key would cross the network in clear', () => {
    expect(transit.url).toMatch(/^http:\/\//);
    const open = () => vaultTransitKeyStore({ address: transit.url, token: transit.token, keyName: 'wallet-vault' });
    expect(open).toThrow(/^invalid vaultTransitKeyStore options:\n {2}address: http:\/\/ would send the Vault token and every wallet key Vault unwraps in clear; use https:\/\/, or pass allowHttp: true/);
    expect(transit.calls).toEqual([]);
  });

  it('refuses a node-vault client whose endpoint is http:// alike', () => {
    const client = vault({ endpoint: transit.url, token: transit.token });
    expect(() => vaultTransitKeyStore({ client, keyName: 'wallet-vault' })).toThrow(/client\.endpoint: http:\/\/ would send the Vault token/);
  });

  it('accepts https:// without asking', () => {
    expect(() => vaultTransitKeyStore({ address: 'https://vault.internal:8200', token: 't', keyName: 'wallet-vault' })).not.toThrow();
    expect(() => vaultTransitKeyStore({ client: vault({ endpoint: 'https://vault.internal:8200' }), keyName: 'wallet-vault' })).not.toThrow();
  });

  it('with allowHttp: true, talks to it (a loopback or otherwise trusted network)', async () => {
    const store = vaultTransitKeyStore({ address: transit.url, token: transit.token, keyName: 'wallet-vault', allowHttp: true });
    try {
      const { keyRef } = await store.create();
      expect((await store.sign(keyRef, new Uint8Array(32).fill(1))).r).toHaveLength(32);
    } finally {
      await store.close();
    }
    expect(transit.calls).toContain('encrypt');
  });
});
