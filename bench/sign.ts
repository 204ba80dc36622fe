import { measureCpuPerRequest, type CpuResult } from './support/cpu.js';
import { printTable, runLoad, type LoadResult } from './support/load.js';
import { startFloor, startService, type SignTarget } from './support/sign-servers.js';

/**
 * Sign throughput and p99 latency at 32 connections: the service (one process, SQLite, local key store)
 * against the floor (bare node:http doing the same cryptographic work) measured in the same run. Then
 * the server's CPU time per sign over a fixed number of signs, for both: the figure that stays put when
 * other work shares the machine.
 * With `workers` > 1 it also measures the service's throughput with VAULT_WORKERS=workers (not part of
 * the target, which is for one process; no CPU figure, the workers being other processes).
 * Usage: npm run bench:sign [-- seconds [cpu-requests [workers]]]
 */
const seconds = Number(process.argv[2] ?? 15);
const cpuRequests = Number(process.argv[3] ?? 20_000);
const workers = Number(process.argv[4] ?? 1);
const CONNECTIONS = 32;

interface Measured {
  readonly load: LoadResult;
  readonly cpu: CpuResult;
}

/** Starts a server, runs `work` against it, and stops it whatever happens. */
async function withTarget<T>(start: () => Promise<SignTarget>, work: (target: SignTarget) => Promise<T>): Promise<T> {
  const target = await start();
  try {
    return await work(target);
  } finally {
    await target.stop();
  }
}

const throughput = (target: SignTarget) => runLoad({ ...target.request, connections: CONNECTIONS, durationSeconds: seconds });

/** Throughput for `seconds`, then CPU per request over `cpuRequests`, against one server process. */
const measure = (start: () => Promise<SignTarget>): Promise<Measured> =>
  withTarget(start, async (target) => ({
    load: await throughput(target),
    cpu: await measureCpuPerRequest(target.pid, { ...target.request, connections: CONNECTIONS, requests: cpuRequests }),
  }));

const floor = await measure(startFloor);
const service = await measure(() => startService());
const several = workers > 1 ? await withTarget(() => startService([], workers), throughput) : undefined;
printTable([floor.load, service.load, ...(several ? [several] : [])]);
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
