import { createCipheriv, pbkdf2Sync, randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encryptKeystoreJson, keccak256, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, migrateStore, runCli, type CliResult } from '../support/cli.js';
import { recoverWithStore } from '../support/recover-with-store.js';
import { startTestServer } from '../support/test-server.js';

interface ImportedWallet {
  id: string;
  account: string;
  vault: string;
  name: string;
  address: string;
  keyStore: string;
  created: string;
  updated: string;
}

/** The `--json` error line: the last of stderr (the store opened is noted before it). */
const lastJsonLine = (stderr: string): unknown => JSON.parse(stderr.trim().split('\n').at(-1)!);

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}

/** A V3 keystore with the pbkdf2 KDF (ethers writes scrypt ones), as the Web3 Secret Storage definition gives it. */
function pbkdf2Keystore(privateKey: string, password: string): string {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const derived = pbkdf2Sync(Buffer.from(password), salt, 1000, 32, 'sha256');
  const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(Buffer.from(privateKey.slice(2), 'hex')), cipher.final()]);
  const mac = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])).slice(2);
  return JSON.stringify({
    version: 3,
    id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf: 'pbkdf2',
      kdfparams: { c: 1000, dklen: 32, prf: 'hmac-sha256', salt: salt.toString('hex') },
      mac,
    },
  });
}

// Each case runs the real command a few times (a process each, the store opened each time): bounded by
// the work, not by a margin, so the cases get room for a loaded machine.
describe('wallet-vault keys import', { timeout: 240_000 }, () => {
  let dir: string;
  let dataDir: string;
  let env: Record<string, string>;
  let vaultId: string;
  let otherVaultId: string;
  /** Every CLI result of this file: none may carry a key. */
  const outputs: CliResult[] = [];
  /** Every key imported or tried, lower-case hex without 0x. */
  const keys: string[] = [];

  const write = async (name: string, content: string, mode = 0o600) => {
    const file = path.join(dir, name);
    await writeFile(file, content, { mode });
    await chmod(file, mode);
    return file;
  };
  const run = async (args: string[]) => {
    const r = await runCli(['keys', 'import', ...args], env);
    outputs.push(r);
    return r;
  };
  const fresh = () => {
    const wallet = Wallet.createRandom();
    keys.push(wallet.privateKey.slice(2).toLowerCase());
    return wallet;
  };
  const auditTrail = () => cliJson<{ action: string; actor: string; vault: string; subject: string; details: Record<string, unknown> }[]>(['audit', 'list', '--limit', '1000'], env);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-import-'));
    dataDir = path.join(dir, 'data');
    env = { VAULT_DATA_DIR: dataDir, VAULT_MASTER_KEY: randomBytes(32).toString('hex') };
    await migrateStore(env);
    vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'treasury'], env)).id;
    otherVaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'other'], env)).id;
  }, 240_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('imports a raw private key file (0x optional, whitespace trimmed) as a wallet of its address that signs, audited', async () => {
    const key = fresh();
    const file = await write('raw.key', `  ${key.privateKey}\n\n`);
    const r = await run(['--vault', vaultId, '--name', 'hot wallet', '--private-key-file', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const wallet = JSON.parse(r.stdout) as ImportedWallet;
    expect(wallet).toMatchObject({ vault: vaultId, account: 'default', name: 'hot wallet', address: key.address, keyStore: 'local' });

    const bare = fresh();
    const bareFile = await write('bare.key', bare.privateKey.slice(2).toUpperCase());
    const plain = await run(['--vault', vaultId, '--name', 'bare', '--private-key-file', bareFile]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain(`wallet ${bare.address} imported into vault ${vaultId}`);

    const trail = await auditTrail();
    expect(trail.filter((e) => e.action === 'key.imported')).toEqual([
      expect.objectContaining({ actor: 'operator', vault: vaultId, subject: key.address, details: { walletId: wallet.id, name: 'hot wallet', keyStore: 'local', from: 'private-key' } }),
      expect.objectContaining({ actor: 'operator', vault: vaultId, subject: bare.address, details: expect.objectContaining({ from: 'private-key' }) }),
    ]);
  });

  it('imports V3 keystores (scrypt and pbkdf2) with the first line of the password file', async () => {
    const scrypt = fresh();
    const json = await encryptKeystoreJson({ address: scrypt.address, privateKey: scrypt.privateKey }, 'correct horse', { scrypt: { N: 1024 } });
    const keystore = await write('scrypt.json', json, 0o644); // encrypted: its mode is not refused
    const password = await write('scrypt.pass', 'correct horse\r\nnot part of it\n');
    const r = await run(['--vault', vaultId, '--name', 'from scrypt', '--keystore-file', keystore, '--password-file', password, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ address: scrypt.address, name: 'from scrypt' });

    const pbkdf2 = fresh();
    const pbkdf2File = await write('pbkdf2.json', pbkdf2Keystore(pbkdf2.privateKey, 'pw with spaces '));
    const pbkdf2Pass = await write('pbkdf2.pass', 'pw with spaces ');
    const p = await run(['--vault', vaultId, '--name', 'from pbkdf2', '--keystore-file', pbkdf2File, '--password-file', pbkdf2Pass, '--json']);
    expect(p.code, p.stderr).toBe(0);
    expect(JSON.parse(p.stdout)).toMatchObject({ address: pbkdf2.address });
    const trail = await auditTrail();
    expect(trail.filter((e) => e.action === 'key.imported' && e.details.from === 'keystore').map((e) => e.subject)).toEqual([scrypt.address, pbkdf2.address]);
  });

  it('refuses a wrong password clearly and writes nothing (no wallet, no key file, no record)', async () => {
    const key = fresh();
    const json = await encryptKeystoreJson({ address: key.address, privateKey: key.privateKey }, 'right', { scrypt: { N: 1024 } });
    const keystore = await write('wrong.json', json);
    const password = await write('wrong.pass', 'wrong\n');
    const keyFilesBefore = (await readdir(path.join(dataDir, 'keys'))).sort();
    const trailBefore = (await auditTrail()).length;
    const r = await run(['--vault', vaultId, '--name', 'nope', '--keystore-file', keystore, '--password-file', password, '--json']);
    expect(r.code).toBe(1);
    expect(lastJsonLine(r.stderr)).toEqual({ error: "keystore: wrong password (the keystore's MAC does not match)", code: 'INVALID_ARGUMENT' });
    expect((await readdir(path.join(dataDir, 'keys'))).sort()).toEqual(keyFilesBefore);
    expect((await auditTrail()).length).toBe(trailBefore);
    expect(r.stdout).toBe('');
  });

  it('refuses an address a wallet already has, in this vault or another, storing nothing', async () => {
    const key = fresh();
    const file = await write('dup.key', key.privateKey);
    expect((await run(['--vault', vaultId, '--name', 'first', '--private-key-file', file])).code).toBe(0);
    const keyFiles = (await readdir(path.join(dataDir, 'keys'))).sort();
    const again = await run(['--vault', vaultId, '--name', 'second', '--private-key-file', file]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`address ${key.address} is already wallet \\S+ \\("first"\\) of this vault; nothing was imported`));
    const elsewhere = await run(['--vault', otherVaultId, '--name', 'elsewhere', '--private-key-file', file, '--json']);
    expect(elsewhere.code).toBe(1);
    expect(lastJsonLine(elsewhere.stderr)).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('another vault of this database') });
    expect((await readdir(path.join(dataDir, 'keys'))).sort()).toEqual(keyFiles);
  });

  it('refuses a key or password file others may read, and what is not a key, without echoing the file', async () => {
    const key = fresh();
    const open = await write('open.key', key.privateKey, 0o644);
    const r = await run(['--vault', vaultId, '--name', 'open', '--private-key-file', open, '--json']);
    expect(r.code).toBe(1);
    expect(lastJsonLine(r.stderr)).toEqual({ error: `--private-key-file: ${open} may be read by others than its owner; chmod 600 ${open}`, code: 'KEY_FILE' });

    const json = await encryptKeystoreJson({ address: key.address, privateKey: key.privateKey }, 'pw', { scrypt: { N: 1024 } });
    const keystore = await write('open.json', json);
    const openPass = await write('open.pass', 'pw', 0o640);
    const p = await run(['--vault', vaultId, '--name', 'open', '--keystore-file', keystore, '--password-file', openPass]);
    expect(p.code).toBe(1);
    expect(p.stderr).toContain(`--password-file: ${openPass} may be read by others than its owner`);

    // 63 digits of a real key: refused, and not one digit of it shown.
    const short = await write('short.key', key.privateKey.slice(0, -1));
    const s = await run(['--vault', vaultId, '--name', 'short', '--private-key-file', short]);
    expect(s.code).toBe(1);
    expect(s.stderr).toContain(`--private-key-file: ${short} does not hold a private key (64 hex digits, 0x optional)`);
    expect(s.stderr).not.toContain(key.privateKey.slice(2, 20));
  });

  it('takes exactly one kind of file (usage errors, exit 2)', async () => {
    const file = await write('usage.key', fresh().privateKey);
    expect((await run(['--vault', vaultId, '--name', 'x'])).code).toBe(2);
    expect((await run(['--vault', vaultId, '--name', 'x', '--private-key-file', file, '--keystore-file', file, '--password-file', file])).code).toBe(2);
    const noPassword = await run(['--vault', vaultId, '--name', 'x', '--keystore-file', file]);
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toContain('--password-file');
  });

  it('leaves no key in any output (the CLI logs to stderr), audit record or file of the data directory; the imported wallets sign after a restart', async () => {
    const records = await auditTrail();
    const trail = JSON.stringify(records);
    const server = await startTestServer({ dataDir, env });
    try {
      const imported = records.filter((e) => e.action === 'key.imported');
      expect(imported.length).toBeGreaterThanOrEqual(5);
      for (const e of imported) expect(await recoverWithStore(server, e.vault, e.subject)).toBe(e.subject);
    } finally {
      await server.stop({ keepData: true });
    }
    const everything = [trail, ...outputs.flatMap((r) => [r.stdout, r.stderr])].join('\n').toLowerCase();
    const files = await Promise.all((await filesUnder(dataDir)).map((f) => readFile(f)));
    expect(keys.length).toBeGreaterThanOrEqual(8);
    for (const key of keys) {
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(key.slice(0, 16));
      for (const content of files) {
        expect(content.toString('latin1').toLowerCase()).not.toContain(key);
        expect(content.includes(Buffer.from(key, 'hex'))).toBe(false);
      }
    }
  });
});
