import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cliJson, migrateWithBuild, spawnServer, type ChildServer } from '../test/support/cli.js';
import { createTestDatabase, POSTGRES_AVAILABLE } from '../test/support/postgres.js';
import { createCpuSlice, type CpuSlice } from './support/cpu-cgroup.js';
import { median, printTable, runLoad, type LoadResult } from './support/load.js';
import { observePostgres, type PostgresObservation } from './support/postgres-observer.js';
import { SIGN_ABI as abi, SIGN_ARGS as args, SIGN_CONTRACT as contract, SIGN_SENDER as sender, SIGN_UNIQ as uniq } from './support/sign-request.js';

/**
 * Create and sign throughput on SQLite (one instance) beside PostgreSQL with one instance and with two
 * instances sharing the database, each `wallet-vault serve` in its own process with the local key store
 * (the two instances share one key directory and master key). The same total number of connections
 * drives every setup; with two instances it is split between them and the rates are added.
 * Usage: npm run bench:postgres [-- seconds]
 * BENCH_RATE_LIMIT_STORE=database|redis|process: every setup runs with a per-API-key rate limit too high
 * to refuse anything (10⁹ a minute), counted in that store on PostgreSQL (redis: VAULT_TEST_REDIS_URL,
 * default redis://127.0.0.1:6379) and in process on SQLite: the cost of counting, one key under load.
 * BENCH_BASELINE_BIN=<other checkout>/bin/wallet-vault.js also measures that build (built there) on SQLite and
 * on PostgreSQL with one instance, each right after this build's same setup: an A/B of PostgreSQL's share
 * of SQLite's rate in the same run.
 * BENCH_INSTANCE_CORES=0.5 runs each service instance in a CPU cgroup of its own with that quota (root;
 * as if each instance had a small machine of its own, the database and the load on others): on a machine
 * with few cores the service, PostgreSQL and the load generator otherwise compete for the same cores, and
 * what is compared is partly how PostgreSQL's own CPU crowds the service out.
 * BENCH_ROUNDS=N (default 1) measures the sign setups N times, alternating builds, and reports each
 * round's share and their median.
 */
const seconds = Number(process.argv[2] ?? 10);
const baselineBin = process.env.BENCH_BASELINE_BIN;
const INSTANCE_CORES = process.env.BENCH_INSTANCE_CORES === undefined ? undefined : Number(process.env.BENCH_INSTANCE_CORES);
if (INSTANCE_CORES !== undefined && !(INSTANCE_CORES > 0)) throw new Error('BENCH_INSTANCE_CORES: a positive number of cores (0.5: half a core per instance)');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('BENCH_ROUNDS: a whole number of rounds, at least 1');
const RATE_LIMIT_STORE = process.env.BENCH_RATE_LIMIT_STORE;
if (RATE_LIMIT_STORE !== undefined && !['database', 'redis', 'process'].includes(RATE_LIMIT_STORE)) {
  throw new Error('BENCH_RATE_LIMIT_STORE: database, redis or process');
}
/** The rate-limit settings of a setup, and what its label says of them. */
function rateLimitOf(database: 'sqlite' | 'postgres'): { env: Record<string, string>; label: string } {
  if (RATE_LIMIT_STORE === undefined) return { env: {}, label: '' };
  const store = database === 'sqlite' ? 'process' : RATE_LIMIT_STORE;
  const env: Record<string, string> = { VAULT_RATE_LIMIT_PER_MINUTE: '1000000000', VAULT_RATE_LIMIT_STORE: store };
  if (store === 'redis') env.VAULT_REDIS_URL = process.env.VAULT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  return { env, label: `, rate limit in ${store}` };
}
const CONNECTIONS = { create: 16, sign: 32 };
const MASTER_KEY = 'ab'.repeat(32);

interface Setup {
  readonly label: string;
  readonly env: Record<string, string>;
  /** The database to watch during the sign load (PostgreSQL setups). */
  readonly databaseUrl?: string;
  readonly instances: number;
  /** Another build's CLI (BENCH_BASELINE_BIN); absent: this build. */
  readonly bin?: string;
  cleanup(): Promise<void>;
}

/** `setup` run by the baseline build, so labelled. */
const onBaseline = (setup: Setup): Setup => ({ ...setup, label: `${setup.label} (${baselineBin})`, bin: baselineBin });

async function sqliteSetup(dataDir: string): Promise<Setup> {
  const limit = rateLimitOf('sqlite');
  return { label: `SQLite, 1 instance${limit.label}`, env: { VAULT_DATA_DIR: dataDir, VAULT_MASTER_KEY: MASTER_KEY, ...limit.env }, instances: 1, cleanup: async () => undefined };
}

async function postgresSetup(dataDir: string, instances: number): Promise<Setup> {
  const db = await createTestDatabase();
  const limit = rateLimitOf('postgres');
  return {
    label: `PostgreSQL, ${instances} instance${instances > 1 ? 's' : ''}${limit.label}`,
    env: { VAULT_DATA_DIR: dataDir, VAULT_MASTER_KEY: MASTER_KEY, VAULT_DATABASE_URL: db.url, VAULT_DATABASE_POOL_SIZE: '10', LOG_LEVEL: 'error', ...limit.env },
    databaseUrl: db.url,
    instances,
    cleanup: () => db.drop(),
  };
}

/** Runs the same load split over the instances at once; rates add up, latencies are the worst instance's. */
async function loadAcross(servers: ChildServer[], label: string, connections: number, path: string, headers: Record<string, string>, body: string): Promise<LoadResult> {
  const parts = await Promise.all(
    servers.map((s) =>
      runLoad({ label, url: `${s.url}${path}`, connections: connections / servers.length, durationSeconds: seconds, method: 'POST', headers, body }),
    ),
  );
  const sum = (f: (r: LoadResult) => number) => parts.reduce((n, r) => n + f(r), 0);
  return {
    label,
    connections,
    requestsPerSecond: sum((r) => r.requestsPerSecond),
    p50Ms: Math.max(...parts.map((r) => r.p50Ms)),
    p99Ms: Math.max(...parts.map((r) => r.p99Ms)),
    total: sum((r) => r.total),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
  };
}

async function measure(setup: Setup): Promise<LoadResult[]> {
  const bin = { bin: setup.bin };
  await migrateWithBuild(setup.env, setup.bin);
  const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'bench'], setup.env, bin);
  const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], setup.env, bin);
  const servers: ChildServer[] = [];
  const slices: CpuSlice[] = [];
  try {
    for (let i = 0; i < setup.instances; i++) {
      const server = await spawnServer(setup.env, [], setup.bin);
      servers.push(server);
      if (INSTANCE_CORES === undefined) continue;
      const slice = await createCpuSlice(`wv-bench-pg-${i}`, INSTANCE_CORES);
      slices.push(slice);
      await slice.add(server.child.pid!);
    }
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const base = `/api/v1/vaults/${vault.id}`;
    const created = await fetch(`${servers[0]!.url}${base}/wallets`, { method: 'POST', headers, body: JSON.stringify({ name: 'signer' }) });
    const wallet = ((await created.json()) as { data: { address: string } }).data;
    const signBody = JSON.stringify({ chain: 'local', contract, sender, uniq, signer: wallet.address, abi, args });
    for (const s of servers) {
      const check = await fetch(`${s.url}${base}/sign`, { method: 'POST', headers, body: signBody });
      if (check.status !== 200) throw new Error(`sign failed: ${check.status} ${await check.text()}`);
    }
    const creates = await loadAcross(servers, `${setup.label}: POST /wallets`, CONNECTIONS.create, `${base}/wallets`, headers, JSON.stringify({ name: 'bench' }));
    const signs = () => loadAcross(servers, `${setup.label}: POST /sign`, CONNECTIONS.sign, `${base}/sign`, headers, signBody);
    if (!setup.databaseUrl) return [creates, await signs()];
    const { result, observed } = await observePostgres(setup.databaseUrl, signs);
    observations.push([setup.label, observed]);
    return [creates, result];
  } finally {
    for (const s of servers) await s.kill('SIGTERM');
    for (const slice of slices) await slice.remove().catch((e: Error) => console.error(`could not remove ${slice.name}: ${e.message}`));
  }
}

const observations: [string, PostgresObservation][] = [];

if (!POSTGRES_AVAILABLE) throw new Error('no PostgreSQL server answers (set VAULT_TEST_POSTGRES_URL)');
const results: LoadResult[] = [];
// One round: SQLite then PostgreSQL (one instance) for this build, the same for the baseline right after.
const ROUND: ((dataDir: string) => Promise<Setup>)[] = [
  sqliteSetup,
  (d: string) => postgresSetup(d, 1),
  ...(baselineBin ? [async (d: string) => onBaseline(await sqliteSetup(d)), async (d: string) => onBaseline(await postgresSetup(d, 1))] : []),
];
const SETUPS = [...Array.from({ length: ROUNDS }, () => ROUND).flat(), (d: string) => postgresSetup(d, 2)];
const shares: { build: number[]; baseline: number[] } = { build: [], baseline: [] };
for (const make of SETUPS) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-bench-pg-'));
  const setup = await make(dataDir);
  try {
    results.push(...(await measure(setup)));
  } finally {
    await setup.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
  // PostgreSQL's share of SQLite's sign rate, from the two setups just measured (same build, same round).
  if (setup.instances === 1 && setup.databaseUrl) {
    const [sqlite, postgres] = results.filter((r) => r.label.endsWith(': POST /sign')).slice(-2);
    (setup.bin ? shares.baseline : shares.build).push(postgres!.requestsPerSecond / sqlite!.requestsPerSecond);
  }
}
printTable(results);

const figures = (xs: number[]) => `${median(xs).toFixed(2)}${xs.length > 1 ? ` (rounds: ${xs.map((x) => x.toFixed(2)).join(' / ')})` : ''}`;
const where = INSTANCE_CORES === undefined ? '' : `, each instance in a ${INSTANCE_CORES}-core CPU slice`;
console.log(`\nPOST /sign, PostgreSQL (1 instance) / SQLite${where}: this build ${figures(shares.build)}${baselineBin ? `, ${baselineBin} ${figures(shares.baseline)}` : ''}`);

console.log('\n| during POST /sign | commits per sign | rows inserted per sign | what the service\'s connections were doing (share of samples) |');
console.log('|---|---|---|---|');
for (const [label, o] of observations) {
  const states = [...o.states].map(([k, share]) => `${k} ${(share * 100).toFixed(0)} %`).join('; ');
  console.log(`| ${label} | ${o.commitsPerRequest.toFixed(3)} | ${o.rowsInsertedPerRequest.toFixed(2)} | ${states} |`);
}
