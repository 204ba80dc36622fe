import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyRefOfFileName, unsealKey } from '../../adapters/keystore/local-file/key-file.js';
import { masterKeyCheck } from '../../adapters/keystore/local-file/master-key-check.js';
import { KEY_STORE_REGISTRY } from '../../adapters/main/tokens.js';
import type { KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import { BIN, cliJson } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { recoverWithStore } from '../support/recover-with-store.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** The real command; resolves with the signal that ended it (null when it exited on its own). */
function rotate(env: Record<string, string>, newKeyFile: string): Promise<{ code: number; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'keys', 'rotate-master', '--new-key-file', newKeyFile],
      { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, timeout: 60_000 },
      (error, _stdout, stderr) => {
        const e = error as { code?: number; signal?: string } | null;
        resolve({ code: e ? (e.code ?? 1) : 0, signal: e?.signal ?? null, stderr });
      },
    );
  });
}

/** How many key files each key opens; every file must open under exactly one of them. */
async function keyFilesUnder(keysDir: string, oldKey: Buffer, newKey: Buffer): Promise<{ old: number; new: number }> {
  const counts = { old: 0, new: 0 };
  for (const name of await readdir(keysDir)) {
    const ref = keyRefOfFileName(name);
    if (!ref) continue;
    const sealed = await readFile(path.join(keysDir, name));
    const [o, n] = [unsealKey(oldKey, ref, sealed), unsealKey(newKey, ref, sealed)];
    expect([o, n].filter((k) => k !== null), `${name} opens under exactly one key`).toHaveLength(1);
    if (o) counts.old++;
    else counts.new++;
  }
  return counts;
}

const readKey = async (file: string) => Buffer.from((await readFile(file, 'utf8')).trim(), 'hex');

async function walletsOn(s: TestServer, count: number): Promise<{ vaultId: string; apiKey: string; addresses: string[] }> {
  const vaultId = (await s.createVault({ name: 'rotation' })).id;
  const { apiKey } = await s.createApiKey(vaultId);
  const api = client(s.url, apiKey);
  const addresses: string[] = [];
  for (let i = 0; i < count; i++) addresses.push((await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: `w${i}` })).body.data.address);
  return { vaultId, apiKey, addresses };
}

const OPERATOR_TOKEN = 'operator-token-for-the-readiness-details';

/** /readyz is 503 for everyone; only the operator's token sees why (anyone else: the store's name only). */
async function expectNotReady(url: string, reason: RegExp): Promise<void> {
  const anonymous = await fetch(`${url}/readyz`);
  expect(anonymous.status).toBe(503);
  expect(await anonymous.json()).toEqual({ success: false, error: 'key store local unavailable', code: 'KEYSTORE_UNAVAILABLE' });
  const operator = await fetch(`${url}/readyz`, { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
  expect(operator.status).toBe(503);
  expect(JSON.stringify(await operator.json())).toMatch(reason);
}

describe('wallet-vault keys rotate-master', () => {
  it('survives SIGKILL at any step: every wallet stays under one of the two keys, a rerun finishes, every wallet signs under the new key', async () => {
    const first = await startTestServer({ env: { VAULT_METRICS_TOKEN: OPERATOR_TOKEN } });
    const { vaultId, addresses } = await walletsOn(first, 40);
    const env = { VAULT_DATA_DIR: first.dataDir };
    const keysDir = path.join(first.dataDir, 'keys');
    const masterKeyFile = path.join(first.dataDir, 'master.key');
    const newKeyFile = path.join(tmpdir(), `wallet-vault-new-key-${randomBytes(4).toString('hex')}`);
    const oldKey = await readKey(masterKeyFile);
    try {
      // Killed after its first file while a server still runs on the old key: that server is no longer ready.
      expect((await rotate({ ...env, VAULT_TEST_ROTATE_KILL: '1' }, newKeyFile)).signal).toBe('SIGKILL');
      const newKey = await readKey(newKeyFile);
      await expectNotReady(first.url, /master key rotation is in progress/);
      await first.stop({ keepData: true });
      expect(await keyFilesUnder(keysDir, oldKey, newKey)).toEqual({ old: 39, new: 1 });

      // Each run re-wraps a few more files and dies: after a rename, and between a durable new file and its rename.
      const kills: [string, number][] = [['5', 6], ['3:before-rename', 8], ['10', 18]];
      for (const [point, underNew] of kills) {
        const run = await rotate({ ...env, VAULT_TEST_ROTATE_KILL: point }, newKeyFile);
        expect(run.signal, run.stderr).toBe('SIGKILL');
        expect(await keyFilesUnder(keysDir, oldKey, newKey)).toEqual({ old: 40 - underNew, new: underNew });
      }
      await expect(startTestServer({ dataDir: first.dataDir })).rejects.toThrow(/master key rotation is in progress/);

      // Killed once every file is done and master.key holds the new key, before the check value moves:
      // the rerun starts from the new key alone.
      expect((await rotate({ ...env, VAULT_TEST_ROTATE_KILL: 'commit' }, newKeyFile)).signal).toBe('SIGKILL');
      expect((await readKey(masterKeyFile)).equals(newKey)).toBe(true);
      expect(JSON.parse(await readFile(path.join(keysDir, 'master-key.check'), 'utf8')).hmacSha256).toBe(masterKeyCheck(oldKey));
      await expect(startTestServer({ dataDir: first.dataDir })).rejects.toThrow(/master key rotation is in progress/);

      const done = await cliJson<{ files: number; rewrapped: number; newKeyGoesTo: string }>(['keys', 'rotate-master', '--new-key-file', newKeyFile], env);
      expect(done).toMatchObject({ files: 40, rewrapped: 0, newKeyGoesTo: 'master.key' });
      expect(await keyFilesUnder(keysDir, oldKey, newKey)).toEqual({ old: 0, new: 40 });
      expect((await readKey(masterKeyFile)).equals(newKey)).toBe(true);
      expect(JSON.parse(await readFile(path.join(keysDir, 'master-key.check'), 'utf8')).hmacSha256).toBe(masterKeyCheck(newKey));
      expect(existsSync(path.join(keysDir, 'master-key.rotation'))).toBe(false);

      const second = await startTestServer({ dataDir: first.dataDir });
      try {
        for (const address of addresses) expect(await recoverWithStore(second, vaultId, address)).toBe(address);
      } finally {
        await second.stop({ keepData: true });
      }
      // The old key no longer opens this data, and says how to proceed.
      await rm(masterKeyFile);
      await expect(startTestServer({ dataDir: first.dataDir, env: { VAULT_MASTER_KEY: oldKey.toString('hex') } })).rejects.toThrow(
        /master key mismatch: VAULT_MASTER_KEY is not the key .*64-hex content of the master\.key/,
      );
    } finally {
      await rm(first.dataDir, { recursive: true, force: true });
      await rm(newKeyFile, { force: true });
    }
  });

  it('a start with another key stops naming VAULT_MASTER_KEY or master.key; a server whose key was rotated away is not ready', async () => {
    const keyA = randomBytes(32).toString('hex');
    const keyB = randomBytes(32).toString('hex');
    const s = await startTestServer({ env: { VAULT_MASTER_KEY: keyA, VAULT_METRICS_TOKEN: OPERATOR_TOKEN } });
    const { vaultId, apiKey, addresses } = await walletsOn(s, 2);
    const masterKeyFile = path.join(s.dataDir, 'master.key');
    const newKeyFile = path.join(s.dataDir, 'new.key');
    try {
      const start = (env: Record<string, string>) => startTestServer({ dataDir: s.dataDir, env });
      await expect(start({ VAULT_MASTER_KEY: keyB })).rejects.toThrow(/master key mismatch: VAULT_MASTER_KEY is not the key/);
      // Without VAULT_MASTER_KEY, no fresh master.key is made up for wallets wrapped under another.
      await expect(start({})).rejects.toThrow(/VAULT_MASTER_KEY is not set and .*master\.key does not exist/);
      expect(existsSync(masterKeyFile)).toBe(false);
      await writeFile(masterKeyFile, `${keyB}\n`, { mode: 0o600 });
      await expect(start({})).rejects.toThrow(new RegExp(`master key mismatch: ${masterKeyFile} is not the key`));
      await expect(start({ VAULT_MASTER_KEY: keyA })).rejects.toThrow(/VAULT_MASTER_KEY and .*master\.key hold different keys/);
      await rm(masterKeyFile);

      // Rotated while it runs (the docs say to stop servers first): the server stops being ready.
      const rotated = await cliJson<{ files: number; newKeyGoesTo: string }>(['keys', 'rotate-master', '--new-key-file', newKeyFile], {
        VAULT_DATA_DIR: s.dataDir,
        VAULT_MASTER_KEY: keyA,
      });
      expect(rotated).toMatchObject({ files: 2, newKeyGoesTo: 'VAULT_MASTER_KEY' });
      await expectNotReady(s.url, /master key mismatch: VAULT_MASTER_KEY/);
      // The keys this server unwrapped (each signed its wallet's binding at creation) dropped, as their
      // minutes in memory would: a sign then reads its key file.
      await s.server.container.get<KeyStoreRegistry>(KEY_STORE_REGISTRY).get('local').close();
      // Signing and creating say why, and no wallet is created under a key the directory no longer uses.
      await expect(recoverWithStore(s, vaultId, addresses[0]!)).rejects.toThrow(/master key mismatch: VAULT_MASTER_KEY/);
      const created = await client(s.url, apiKey).post(`/api/v1/vaults/${vaultId}/wallets`, { name: 'late' });
      expect(created.status).toBe(503);
      expect(created.body.error).toMatch(/master key mismatch/);
      expect((await readdir(path.join(s.dataDir, 'keys'))).filter((n) => n.endsWith('.key'))).toHaveLength(2);

      await s.stop({ keepData: true });
      const after = await start({ VAULT_MASTER_KEY: (await readFile(newKeyFile, 'utf8')).trim() });
      try {
        for (const address of addresses) expect(await recoverWithStore(after, vaultId, address)).toBe(address);
      } finally {
        await after.stop({ keepData: true });
      }
    } finally {
      await s.stop().catch(() => undefined);
      await rm(s.dataDir, { recursive: true, force: true });
    }
  });
});
