import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliJson, spawnServer } from '../test/support/cli.js';
import { measureCpuPerRequest, type CpuResult } from './support/cpu.js';
import { printTable, runLoad, type LoadOptions, type LoadResult } from './support/load.js';
import { SIGN_ABI as abi, SIGN_ARGS as args, SIGN_CONTRACT as contract, SIGN_SENDER as sender, SIGN_UNIQ as uniq } from './support/sign-request.js';

/**
 * Sign throughput and p99 latency at 32 connections: the service (one process, SQLite, local key store)
 * against the floor (bare node:http doing the same cryptographic work) measured in the same run. Then
 * the server's CPU time per sign over a fixed number of signs, for both: the figure that stays put when
 * other work shares the machine.
 * Usage: npm run bench:sign [-- seconds [cpu-requests]]
 */
const seconds = Number(process.argv[2] ?? 15);
const cpuRequests = Number(process.argv[3] ?? 20_000);
const CONNECTIONS = 32;

interface Measured {
  readonly load: LoadResult;
  readonly cpu: CpuResult;
}

/** Throughput for `seconds`, then CPU per request over `cpuRequests`, against one server process. */
async function measure(pid: number, o: Omit<LoadOptions, 'durationSeconds' | 'connections'>): Promise<Measured> {
  const load = await runLoad({ ...o, connections: CONNECTIONS, durationSeconds: seconds });
  const cpu = await measureCpuPerRequest(pid, { ...o, connections: CONNECTIONS, requests: cpuRequests });
  return { load, cpu };
}

async function measureFloor(): Promise<Measured> {
  const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/sign-floor.main.js');
  const child = spawn(process.execPath, [entry], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
  try {
    return await measure(child.pid!, {
      label: 'floor: bare node:http + libsecp256k1',
      url: `${url}/sign`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ abi, args, uniq, sender }),
    });
  } finally {
    child.kill('SIGTERM');
  }
}

async function measureService(): Promise<Measured> {
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
      return await measure(server.child.pid!, {
        label: 'wallet-vault POST /sign (1 process)',
        url: `${server.url}/api/v1/vaults/${vault.id}/sign`,
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
printTable([floor.load, service.load]);
console.log(`\nthroughput: service / floor = ${(service.load.requestsPerSecond / floor.load.requestsPerSecond).toFixed(2)} (target >= 0.80)`);

console.log(`\n| server CPU per sign (${cpuRequests} signs, 32 connections) | µs | non-2xx + errors |`);
console.log('|---|---|---|');
for (const { cpu } of [floor, service]) {
  console.log(`| ${cpu.label} | ${cpu.cpuMicrosPerRequest?.toFixed(0) ?? 'n/a'} | ${cpu.non2xx} |`);
}
const [f, v] = [floor.cpu.cpuMicrosPerRequest, service.cpu.cpuMicrosPerRequest];
if (f !== null && v !== null) {
  // At one core per server, throughput is the inverse of CPU per request: this ratio is what the
  // throughput ratio would be on a quiet machine.
  console.log(`\nCPU: floor / service = ${(f / v).toFixed(2)} (target >= 0.80)`);
}
