import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureCpuPerRequest, type CpuResult } from './support/cpu.js';
import { printTable, runLoad, type LoadResult } from './support/load.js';
import { SIGN_ABI as abi, SIGN_ARGS as args, SIGN_CONTRACT as contract, SIGN_SENDER as sender, SIGN_UNIQ as uniq } from './support/sign-request.js';
import { startService, type SignTarget } from './support/sign-servers.js';

/**
 * What does the Express shell cost? The same sign, in the same run, through the standalone server
 * (`wallet-vault serve`: node:http straight into the HTTP pipeline) and through vaultRouter mounted under
 * /vault in a plain Express app (both one process, SQLite, local key store; both run adapters/http/pipeline.ts).
 * Throughput swings with whatever else the machine runs; the server's CPU time per sign is the figure
 * that stays put. Two interleaved rounds.
 * Usage: npm run bench:sign-router [-- seconds [cpu-requests]]
 */
const seconds = Number(process.argv[2] ?? 10);
const cpuRequests = Number(process.argv[3] ?? 5000);

async function startRouter(): Promise<SignTarget> {
  const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/sign-router.main.js');
  const child = spawn(process.execPath, [entry], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
  const { url, vaultId, apiKey } = JSON.parse(line) as { url: string; vaultId: string; apiKey: string };
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const base = `${url}/api/v1/vaults/${vaultId}`;
  const wallet = (await (await fetch(`${base}/wallets`, { method: 'POST', headers, body: JSON.stringify({ name: 'signer' }) })).json()) as { data: { address: string } };
  const body = JSON.stringify({ chain: 'local', contract, sender, uniq, signer: wallet.data.address, abi, args });
  const check = await fetch(`${base}/sign`, { method: 'POST', headers, body });
  if (check.status !== 200) throw new Error(`sign through the router failed: ${check.status} ${await check.text()}`);
  return {
    pid: child.pid!,
    request: { label: 'vaultRouter under /vault (Express)', url: `${base}/sign`, method: 'POST', headers, body },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const loads: LoadResult[] = [];
const cpus: CpuResult[] = [];
for (const start of [() => startService(), startRouter, () => startService(), startRouter]) {
  const target = await start();
  try {
    loads.push(await runLoad({ ...target.request, connections: 32, durationSeconds: seconds }));
    cpus.push(await measureCpuPerRequest(target.pid, { ...target.request, connections: 32, requests: cpuRequests }));
  } finally {
    await target.stop();
  }
}
printTable(loads);
console.log(`\n| server CPU per sign (${cpuRequests} signs, 32 connections) | µs | non-2xx + errors |`);
console.log('|---|---|---|');
for (const cpu of cpus) console.log(`| ${cpu.label} | ${cpu.cpuMicrosPerRequest?.toFixed(0) ?? 'n/a'} | ${cpu.non2xx} |`);
