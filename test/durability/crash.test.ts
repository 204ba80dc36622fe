import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalFileKeyStore } from '../../adapters/keystore/local-file/local-file.key-store.js';
import { resolveMasterKey } from '../../adapters/keystore/local-file/master-key.js';
import { sqlitePersistence } from '../../adapters/persistence/sqlite/index.js';
import { client } from '../support/http-client.js';
import { cliJson, spawnServer, migrateStore } from '../support/cli.js';
import { startTestServer } from '../support/test-server.js';
import { recoverWithStore } from '../support/recover-with-store.js';

describe('SIGKILL during concurrent creates', () => {
  it('loses no acknowledged wallet, and quarantines (keeps) keys no record names', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-crash-'));
    const env = { VAULT_DATA_DIR: dataDir };
    try {
      await migrateStore(env);
      const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'crash'], env);
      const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], env);
      const server = await spawnServer(env);
      const api = client(server.url, apiKey);
      const acknowledged: { address: string; id: string }[] = [];
      let killed = false;
      const worker = async () => {
        while (!killed) {
          try {
            const r = await api.post(`/api/v1/vaults/${vault.id}/wallets`, { name: 'crash' });
            if (r.status === 200) acknowledged.push(r.body.data);
          } catch {
            return; // the connection died with the server
          }
        }
      };
      let running = 16;
      const workers = Array.from({ length: 16 }, () => worker().finally(() => running--));
      while (acknowledged.length < 150 && running > 0) await new Promise((r) => setTimeout(r, 10));
      if (running === 0) throw new Error(`the clients stopped before the kill: ${server.output()}`);
      killed = true;
      await server.kill('SIGKILL');
      await Promise.all(workers);
      expect(acknowledged.length).toBeGreaterThanOrEqual(150);

      // An orphan: a key written durably whose record never committed (as a crash between the two leaves).
      const master = await resolveMasterKey({ dataDir });
      const persistence = await sqlitePersistence({ path: path.join(dataDir, 'vault.db') });
      const deploymentId = await persistence.keyQuarantine!.deploymentId();
      await persistence.close();
      const owner = { accountId: 'default', vaultId: vault.id, walletId: 'never-committed', deploymentId };
      const orphan = await new LocalFileKeyStore({ keysDir: path.join(dataDir, 'keys'), masterKey: master.key }).create(owner);
      const hourAgo = new Date(Date.now() - 3_600_000);
      await utimes(path.join(dataDir, 'keys', `${orphan.keyRef}.key`), hourAgo, hourAgo);
      // A fresh key without a record may belong to a create in flight; the sweep must leave it alone.
      const young = await new LocalFileKeyStore({ keysDir: path.join(dataDir, 'keys'), masterKey: master.key }).create(owner);

      const restarted = await startTestServer({ dataDir });
      try {
        const check = client(restarted.url, apiKey);
        for (const w of acknowledged) {
          const r = await check.get(`/api/v1/vaults/${vault.id}/wallets/${w.address}`);
          expect(r.status).toBe(200);
          expect(r.body.data.id).toBe(w.id);
        }
        for (const w of acknowledged.slice(0, 20)) expect(await recoverWithStore(restarted, vault.id, w.address)).toBe(w.address);

        await restarted.server.purgeNow();
        const files = await readdir(path.join(dataDir, 'keys'));
        // Nothing is destroyed automatically: the orphan is held for the operator, the young key left alone.
        expect(files).toContain(`${orphan.keyRef}.key`);
        expect(files).toContain(`${young.keyRef}.key`);
        const held = await cliJson<{ address: string }[]>(['keys', 'quarantine', 'list'], env);
        expect(held.map((k) => k.address)).toEqual([orphan.keyRef]);
        for (const w of acknowledged) expect(files).toContain(`${w.address.toLowerCase()}.key`);
      } finally {
        await restarted.stop({ keepData: true });
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
