import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createVault } from 'wallet-vault';
import { localFileKeyStore } from 'wallet-vault/keystores/local-file';
import { postgresPersistence } from 'wallet-vault/persistence/postgres';
import { createTestDatabase, POSTGRES_AVAILABLE } from '../support/postgres.js';

if (!POSTGRES_AVAILABLE) console.warn('SKIPPED: postgresPersistence({ pool }) was not run: no PostgreSQL at 127.0.0.1:5432');

describe.skipIf(!POSTGRES_AVAILABLE)('postgresPersistence over a pg.Pool the application already has', () => {
  it('migrates through it, serves a vault on it, and leaves it open on close', async () => {
    const test = await createTestDatabase();
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-pool-'));
    const pool = new pg.Pool({ connectionString: test.url, max: 2 });
    try {
      const persistence = await postgresPersistence({ pool });
      expect(persistence.description).toBe(`PostgreSQL database "${test.name}" on 127.0.0.1:5432`);
      const vault = await createVault({
        persistence,
        keyStores: [localFileKeyStore({ keysDir: path.join(dir, 'keys'), masterKeyHex: 'ef'.repeat(32) })],
        jobs: false,
      });
      const created = await vault.manageVaults.create({ name: 'pooled' });
      const { apiKey } = await vault.manageVaults.createApiKey(created.id);
      const principal = await vault.authenticate.execute(apiKey, created.id);
      const wallet = await vault.createWallet.execute({ principal, name: 'w' });
      expect((await vault.listWallets.execute(created.id)).count).toBe(1);
      await vault.close();
      // The application's pool is still its own to use (and to end).
      const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM wallets WHERE address = $1', [wallet.address]);
      expect(rows[0]!.n).toBe('1');
    } finally {
      await pool.end();
      await test.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
