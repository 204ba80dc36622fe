import { loadavg } from 'node:os';
import { createCpuSlice, startInSlice } from './support/cpu-cgroup.js';
import { measureCpuPerRequest, printCpuHeading, printCpuRow } from './support/cpu.js';
import { median, printTable, runLoad, type LoadResult } from './support/load.js';
import { startFloor, startService, type SignTarget } from './support/sign-servers.js';

/**
 * Sign throughput and p99 at 32 connections: the service (one process, SQLite, local key store) beside
 * three references measured in the same run: the bare floor (node:http doing the same cryptographic work,
 * storing nothing), the durable floor (the same, also appending each sign's record to a file and answering
 * after a group-committed fdatasync covers it), and the peer (Express + ethers v6, no storage).
 * The four targets run in `rounds` rounds, each round in a rotated order so that none is always first or
 * last while the machine's load moves; the ratios are taken within each round and their medians reported.
 * With `cpu-signs` > 0, each target's server CPU time per sign over that many signs follows (the figure
 * that stays put when other work shares the machine). With `workers` > 1, a last run measures the service
 * with VAULT_WORKERS=workers (not part of the target, which is for one process).
 * Usage: npm run bench:sign [-- seconds [rounds [cpu-signs [workers]]]]
 * BENCH_SIGN_TARGETS=durable,service runs only the named targets (the service is always measured);
 * `durable-serial` (not among the default targets) is the durable floor syncing one batch at a time, as the
 * service does: a reference with the service's guarantee beside the target's, which overlaps its syncs
 * (support/durable-journal.ts says why that differs).
 * BENCH_BASELINE_BIN=<other checkout>/bin/wallet-vault.js adds `baseline`, the service of another build
 * (built there), in the same rounds: an A/B of a change on a machine whose load moves.
 * BENCH_SIGN_RULES=n (up to 10) gives the service's vault n argument rules on the signed function, all
 * passed by the request (see sign-servers.ts); with BENCH_BASELINE_BIN naming this build, the A/B is the
 * cost of checking them.
 * BENCH_INSTANCE_CORES=0.5 starts every server (each reference and the service) in a CPU cgroup of its own
 * with that quota (root; cgroup v1 or v2), as a container with `--cpus=0.5` would: the ratios are then per
 * capped core, the service and each floor given the same CPU time. The load generator is not capped.
 */
const seconds = Number(process.argv[2] ?? 8);
const rounds = Number(process.argv[3] ?? 3);
const cpuSigns = Number(process.argv[4] ?? 0);
const workers = Number(process.argv[5] ?? 1);
const CONNECTIONS = 32;

type Name = 'bare' | 'durable' | 'durable-serial' | 'peer' | 'service' | 'baseline';
const baselineBin = process.env.BENCH_BASELINE_BIN;
const INSTANCE_CORES = process.env.BENCH_INSTANCE_CORES === undefined ? undefined : Number(process.env.BENCH_INSTANCE_CORES);
if (INSTANCE_CORES !== undefined && !(INSTANCE_CORES > 0)) throw new Error('BENCH_INSTANCE_CORES: a positive number of cores (0.5: half a core per server)');

/** `start` given the node flags that put it in a CPU slice of its own (BENCH_INSTANCE_CORES), removed when it stops. */
function capped(name: string, start: (nodeArgs: string[]) => Promise<SignTarget>): () => Promise<SignTarget> {
  if (INSTANCE_CORES === undefined) return () => start([]);
  return async () => {
    const slice = await createCpuSlice(`wv-bench-sign-${name}`, INSTANCE_CORES);
    const target = await start(startInSlice(slice)).catch(async (error: unknown) => {
      await slice.remove().catch(() => undefined);
      throw error;
    });
    return { ...target, stop: async () => (await target.stop(), await slice.remove()) };
  };
}
const TARGETS: Record<Name, () => Promise<SignTarget>> = {
  bare: capped('bare', (a) => startFloor('bare', a)),
  durable: capped('durable', (a) => startFloor('durable', a)),
  'durable-serial': capped('durable-serial', (a) => startFloor('durable-serial', a)),
  peer: capped('peer', (a) => startFloor('peer', a)),
  service: capped('service', (a) => startService(a)),
  baseline: capped('baseline', (a) => startService(a, 1, baselineBin)),
};
const chosen = process.env.BENCH_SIGN_TARGETS?.split(',') ?? ['bare', 'durable', 'peer'];
const NAMES = (Object.keys(TARGETS) as Name[]).filter(
  (n) => n === 'service' || (n === 'baseline' ? baselineBin !== undefined : chosen.includes(n)),
);

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
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

const results: Record<Name, LoadResult>[] = [];
for (let round = 0; round < rounds; round++) {
  const order = NAMES.map((_, i) => NAMES[(i + round) % NAMES.length]!);
  const measured = {} as Record<Name, LoadResult>;
  for (const name of order) measured[name] = await withTarget(TARGETS[name], throughput);
  results.push(measured);
  console.log(`\nround ${round + 1} (order ${order.join(', ')}; load average ${load()})`);
  printTable(NAMES.map((n) => measured[n]));
}

const ratio = (r: Record<Name, LoadResult>, ref: Name) => r.service.requestsPerSecond / r[ref].requestsPerSecond;
const p99Ratio = (r: Record<Name, LoadResult>) => r.service.p99Ms / r.durable.p99Ms;
const cappedNote = INSTANCE_CORES === undefined ? '' : `, each server capped at ${INSTANCE_CORES} core`;
console.log(`\n| medians over ${rounds} rounds of ${seconds} s${cappedNote} | req/s | p99 ms | service / target (median of the rounds' ratios) |`);
console.log('|---|---|---|---|');
for (const name of NAMES) {
  const rate = median(results.map((r) => r[name].requestsPerSecond));
  const p99 = median(results.map((r) => r[name].p99Ms));
  const r = name === 'service' ? '' : median(results.map((x) => ratio(x, name))).toFixed(2);
  console.log(`| ${results[0]![name].label} | ${rate} | ${p99} | ${r} |`);
}
const fmt = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
const perRound = (ref: Name, goal = '') =>
  NAMES.includes(ref) && console.log(`service / ${ref} per round: ${fmt(results.map((r) => ratio(r, ref)))}${goal}`);
perRound('durable', ' (target: median >= 0.90, every round >= 0.80)');
perRound('durable-serial');
perRound('bare');
perRound('peer');
perRound('baseline');
if (NAMES.includes('durable')) console.log(`p99 service / durable per round: ${fmt(results.map(p99Ratio))} (target <= 1.5)`);
const failed = results.flatMap((r) => NAMES.map((n) => r[n].non2xx + r[n].errors)).reduce((a, b) => a + b, 0);
console.log(`non-2xx + errors over all runs: ${failed}; load average at the end ${load()}`);

if (cpuSigns > 0) {
  printCpuHeading(cpuSigns, 'sign');
  for (const name of NAMES) {
    const cpu = await withTarget(TARGETS[name], (t) =>
      measureCpuPerRequest(t.pid, { ...t.request, connections: CONNECTIONS, requests: cpuSigns }),
    );
    printCpuRow(cpu);
  }
}

if (workers > 1) {
  console.log('');
  printTable([await withTarget(() => startService([], workers), throughput)]);
}
