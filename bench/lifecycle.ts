import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { installKeccak256 } from '../adapters/system/keccak.js';
import { UuidV7IdGenerator } from '../adapters/system/uuid-v7.id-generator.js';
import { openSqliteDatabase } from '../adapters/persistence/sqlite/sqlite.database.js';
import { toChecksumAddress } from '../src/domain/address.js';
import { cliJson, migrateStore, spawnServer } from '../test/support/cli.js';
import { measureLatency, printLatencyTable, type LatencyResult } from './support/latency.js';
import { printTable, runLoad, type LoadResult } from './support/load.js';
import { SqlWalletRepository } from '../adapters/persistence/sql/sql.wallet-repository.js';
import { sqliteSql } from '../adapters/persistence/sqlite/sqlite.sql.js';

/**
 * Create throughput at 16 connections, and get/list latency in vaults of 1 000 and 100 000 wallets,
 * against `wallet-vault serve` in its own process (SQLite, local key store).
 * Usage: npm run bench:lifecycle [-- seconds]
 */
const seconds = Number(process.argv[2] ?? 10);
// toChecksumAddress below hashes with the keccak256 the domain is given; no entry point runs here to give it.
installKeccak256();

/**
 * Fills a vault straight through the repository, in one transaction, with the server stopped: creating
 * 100 000 wallets over HTTP would take minutes and measure create, not get/list. The seeded wallets have
 * no key files, which get and list never touch.
 */
async function seed(dataDir: string, vaultId: string, accountId: string, count: number): Promise<string[]> {
  const db = openSqliteDatabase({ path: path.join(dataDir, 'vault.db') });
  const repo = new SqlWalletRepository(sqliteSql(db));
  const ids = new UuidV7IdGenerator();
  const addresses: string[] = [];
  const base = Date.now() - count;
  db.exec('BEGIN');
  for (let i = 0; i < count; i++) {
    const address = toChecksumAddress(`0x${randomBytes(20).toString('hex')}`);
    addresses.push(address);
    const at = new Date(base + i);
    void repo.insertWallet({
      id: ids.next(),
      accountId,
      vaultId,
      name: `seed-${i}`,
      address,
      keyStore: 'local',
      keyRef: address.toLowerCase(),
      // Seeds for list and get only: never signed with, so never bound.
      binding: null,
      derivationPath: null, exported: null,
      created: at,
      updated: at,
      expires: null,
      version: 1,
    });
  }
  db.exec('COMMIT');
  db.close();
  return addresses;
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-bench-'));
const results: LoadResult[] = [];
const latencies: LatencyResult[] = [];
try {
  const vaults = await Promise.all(
    ['create', 'small', 'large'].map(async (name) => {
      await migrateStore({ VAULT_DATA_DIR: dataDir });
      const v = await cliJson<{ id: string; account: string }>(['vaults', 'create', '--name', name], { VAULT_DATA_DIR: dataDir });
      const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', v.id], { VAULT_DATA_DIR: dataDir });
      return { ...v, apiKey };
    }),
  );
  const [creates, small, large] = vaults as [(typeof vaults)[0], (typeof vaults)[0], (typeof vaults)[0]];
  const smallAddresses = await seed(dataDir, small.id, small.account, 1_000);
  const largeAddresses = await seed(dataDir, large.id, large.account, 100_000);

  const server = await spawnServer({ VAULT_DATA_DIR: dataDir });
  try {
    const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
    const pick = (list: string[]) => list[Math.floor(Math.random() * list.length)]!;
    results.push(
      await runLoad({
        label: 'POST /wallets (create)',
        url: `${server.url}/api/v1/vaults/${creates.id}/wallets`,
        connections: 16,
        durationSeconds: seconds,
        method: 'POST',
        headers: auth(creates.apiKey),
        body: JSON.stringify({ name: 'bench' }),
      }),
    );
    for (const [label, vault, addresses] of [
      ['1 000', small, smallAddresses],
      ['100 000', large, largeAddresses],
    ] as const) {
      const base = `/api/v1/vaults/${vault.id}`;
      const common = { url: server.url, headers: auth(vault.apiKey), requests: 2000 };
      const deep = addresses.length - 100;
      latencies.push(await measureLatency({ ...common, label: `GET wallet (${label} wallets)`, path: () => `${base}/wallets/${pick(addresses)}` }));
      latencies.push(await measureLatency({ ...common, label: `list offset=0 count=100 (${label})`, path: () => `${base}/wallets?offset=0&count=100` }));
      latencies.push(await measureLatency({ ...common, label: `list offset=${deep} count=100 (${label})`, path: () => `${base}/wallets?offset=${deep}&count=100` }));
      latencies.push(await measureLatency({ ...common, label: `list offset=0 count=10 (${label})`, path: () => `${base}/wallets?offset=0&count=10` }));
    }
  } finally {
    await server.kill('SIGTERM');
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
printTable(results);
console.log('');
printLatencyTable(latencies);
