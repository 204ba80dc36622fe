import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliJson, spawnServer } from '../test/support/cli.js';
import { printTable, runLoad, type LoadResult } from './support/load.js';
import { SIGN_ABI as abi, SIGN_ARGS as args, SIGN_CONTRACT as contract, SIGN_SENDER as sender, SIGN_UNIQ as uniq } from './support/sign-request.js';

/**
 * Sign throughput and p99 latency at 32 connections: the service (one process, SQLite, local key store)
 * against the floor (bare node:http doing the same cryptographic work) measured in the same run.
 * Usage: npm run bench:sign [-- seconds]
 */
const seconds = Number(process.argv[2] ?? 15);
const CONNECTIONS = 32;

async function measureFloor(): Promise<LoadResult> {
  const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/sign-floor.main.js');
  const child = spawn(process.execPath, [entry], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
  try {
    return await runLoad({
      label: 'floor: bare node:http + libsecp256k1',
      url: `${url}/sign`,
      connections: CONNECTIONS,
      durationSeconds: seconds,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ abi, args, uniq, sender }),
    });
  } finally {
    child.kill('SIGTERM');
  }
}

async function measureService(): Promise<LoadResult> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-bench-'));
  try {
    const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'bench'], { VAULT_DATA_DIR: dataDir });
    const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], { VAULT_DATA_DIR: dataDir });
    const server = await spawnServer({ VAULT_DATA_DIR: dataDir });
    try {
      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const created = await fetch(`${server.url}/api/v1/vaults/${vault.id}/wallets`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'signer' }),
      });
      const wallet = ((await created.json()) as { data: { address: string } }).data;
      const body = JSON.stringify({ chain: 'local', contract, sender, uniq, signer: wallet.address, abi, args });
      const check = await fetch(`${server.url}/api/v1/vaults/${vault.id}/sign`, { method: 'POST', headers, body });
      if (check.status !== 200) throw new Error(`sign failed: ${check.status} ${await check.text()}`);
      return await runLoad({
        label: 'wallet-vault POST /sign (1 process)',
        url: `${server.url}/api/v1/vaults/${vault.id}/sign`,
        connections: CONNECTIONS,
        durationSeconds: seconds,
        method: 'POST',
        headers,
        body,
      });
    } finally {
      await server.kill('SIGTERM');
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const floor = await measureFloor();
const service = await measureService();
printTable([floor, service]);
console.log(`\nservice / floor = ${(service.requestsPerSecond / floor.requestsPerSecond).toFixed(2)} (target >= 0.80)`);
