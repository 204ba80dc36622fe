import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { createVault } from '../../lib/index.js';
import { vaultRouter } from '../../lib/express.js';
import { localFileKeyStore } from '../../lib/keystores/local-file.js';
import { sqlitePersistence } from '../../lib/persistence/sqlite.js';

// The library as an application embeds it: vaultRouter under /vault in a plain Express app, SQLite and
// the local key store configured in code; in its own process, as the standalone server runs. Prints
// one JSON line (url, vault id, API key) once it listens.
const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-bench-router-'));
const vault = await createVault({
  persistence: await sqlitePersistence({ path: path.join(dir, 'vault.db') }),
  keyStores: [localFileKeyStore({ keysDir: path.join(dir, 'keys'), masterKeyHex: 'ab'.repeat(32) })],
  version: 'bench',
});
const created = await vault.manageVaults.create({ name: 'bench' });
const { apiKey } = await vault.manageVaults.createApiKey(created.id);
const app = express();
app.use('/vault', vaultRouter(vault));
const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/vault`, vaultId: created.id, apiKey })}\n`);
});
process.on('SIGTERM', () => server.close(() => void vault.close().then(() => process.exit(0))));
