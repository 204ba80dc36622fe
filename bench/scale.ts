import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cliJson, migrateStore, spawnServer, type ChildServer } from '../test/support/cli.js';
import { createTestDatabase, POSTGRES_AVAILABLE } from '../test/support/postgres.js';
import { PRIVATE_POSTGRES_AVAILABLE, startPrivatePostgres } from '../test/support/private-postgres.js';
import { cgroupKind, createCpuSlice, type CpuSlice } from './support/cpu-cgroup.js';
import { processCpuMicros } from './support/cpu.js';
import { runLoad, type LoadResult } from './support/load.js';
import { SIGN_ABI as abi, SIGN_ARGS as args, SIGN_CONTRACT as contract, SIGN_SENDER as sender, SIGN_UNIQ as uniq } from './support/sign-request.js';

/**
 * Scale-out on one PostgreSQL database (issue 24): N = 1, 2, 3, 4 `wallet-vault serve` instances, each
 * in a CPU cgroup of its own with the same quota (as if each had its own small machine), PostgreSQL and
 * the load generator not capped, the same load per instance (a fixed number of connections each).
 * Reports signs/s, p50/p99, each instance's CPU per sign (/proc/<pid>/stat) and PostgreSQL's CPU per sign
 * (the backends serving the benchmark's database, from /proc too: the server runs on this machine), and
 * the ratios N/1 against the targets (2 instances ≥ 1.8 × one, 3 ≥ 2.5 ×).
 *
 * `--restart` instead measures, on a PostgreSQL cluster of its own, how long two instances under a small
 * sign load take to serve again after `pg_ctl restart -m fast` and `-m immediate` returned.
 *
 * Usage: npm run bench:scale [-- --seconds 10 --quota 0.3 --connections 8 --instances 1,2,3,4] | [-- --restart]
 */
const { values: opt } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    quota: { type: 'string', default: '0.3' },
    connections: { type: 'string', default: '8' },
    instances: { type: 'string', default: '1,2,3,4' },
    restart: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(opt.seconds);
const QUOTA = Number(opt.quota);
const CONNECTIONS = Number(opt.connections);
const COUNTS = opt.instances.split(',').map(Number);
const MASTER_KEY = 'ab'.repeat(32);
const TARGETS: Record<number, number> = { 2: 1.8, 3: 2.5 };

interface Row {
  readonly instances: number;
  readonly load: LoadResult;
  /** µs of CPU per sign of each instance (its own signs). */
  readonly instanceCpu: number[];
  /** µs of CPU per sign of PostgreSQL's backends for the benchmark's database. */
  readonly postgresCpu: number;
  /** Transactions committed in the database per sign: how well signs share their write transaction. */
  readonly commitsPerSign: number;
}

async function commits(admin: pg.Client): Promise<number> {
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()');
  return Number(rows[0]!.n);
}

/** Backend pids of one database, from pg_stat_activity. */
async function backendPids(admin: pg.Client, database: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
  return rows.map((r) => r.pid);
}

async function setupVault(env: Record<string, string>, server: ChildServer) {
  await migrateStore(env);
  const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'bench'], env);
  const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], env);
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const base = `/api/v1/vaults/${vault.id}`;
  const created = await fetch(`${server.url}${base}/wallets`, { method: 'POST', headers, body: JSON.stringify({ name: 'signer' }) });
  const wallet = ((await created.json()) as { data: { address: string } }).data;
  return { headers, path: `${base}/sign`, body: JSON.stringify({ chain: 'local', contract, sender, uniq, signer: wallet.address, abi, args }) };
}

async function measure(instances: number): Promise<Row> {
  const db = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-bench-scale-'));
  const env = { VAULT_DATA_DIR: dataDir, VAULT_MASTER_KEY: MASTER_KEY, VAULT_DATABASE_URL: db.url, VAULT_DATABASE_POOL_SIZE: '10', LOG_LEVEL: 'error' };
  const servers: ChildServer[] = [];
  const slices: CpuSlice[] = [];
  const admin = new pg.Client({ connectionString: db.url });
  try {
    await admin.connect();
    for (let i = 0; i < instances; i++) {
      const server = await spawnServer(env);
      servers.push(server);
      const slice = await createCpuSlice(`wv-bench-${i}`, QUOTA);
      slices.push(slice);
      await slice.add(server.child.pid!);
    }
    const sign = await setupVault(env, servers[0]!);
    const load = (seconds: number) =>
      Promise.all(servers.map((s) => runLoad({ label: `${instances}`, url: `${s.url}${sign.path}`, connections: CONNECTIONS, durationSeconds: seconds, method: 'POST', headers: sign.headers, body: sign.body })));
    await load(2); // warm up: pools open, caches filled, JIT done
    const pgBefore = new Map((await backendPids(admin, db.name)).map((pid) => [pid, processCpuMicros(pid) ?? 0]));
    const cpuBefore = servers.map((s) => processCpuMicros(s.child.pid!) ?? 0);
    const commitsBefore = await commits(admin);
    const parts = await load(SECONDS);
    const cpuAfter = servers.map((s) => processCpuMicros(s.child.pid!) ?? 0);
    // pg_stat_database is reported by backends with a short delay after their transactions end.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const committed = (await commits(admin)) - commitsBefore;
    // Backends that appeared during the run count from zero; the observer's own is left out by pid.
    let postgresMicros = 0;
    for (const pid of await backendPids(admin, db.name)) postgresMicros += (processCpuMicros(pid) ?? 0) - (pgBefore.get(pid) ?? 0);
    const ok = (r: LoadResult) => r.total - r.non2xx;
    const signs = parts.reduce((n, r) => n + ok(r), 0);
    return {
      instances,
      load: {
        label: `${instances}`,
        connections: CONNECTIONS * instances,
        requestsPerSecond: parts.reduce((n, r) => n + r.requestsPerSecond, 0),
        p50Ms: Math.max(...parts.map((r) => r.p50Ms)),
        p99Ms: Math.max(...parts.map((r) => r.p99Ms)),
        total: parts.reduce((n, r) => n + r.total, 0),
        non2xx: parts.reduce((n, r) => n + r.non2xx, 0),
        errors: parts.reduce((n, r) => n + r.errors, 0),
      },
      instanceCpu: parts.map((r, i) => (cpuAfter[i]! - cpuBefore[i]!) / Math.max(ok(r), 1)),
      postgresCpu: postgresMicros / Math.max(signs, 1),
      commitsPerSign: committed / Math.max(signs, 1),
    };
  } finally {
    await admin.end().catch(() => undefined);
    for (const s of servers) await s.kill('SIGTERM');
    for (const slice of slices) await slice.remove().catch((e: Error) => console.error(`could not remove ${slice.name}: ${e.message}`));
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function scaling(): Promise<void> {
  if (!POSTGRES_AVAILABLE) throw new Error('no PostgreSQL server answers (set VAULT_TEST_POSTGRES_URL)');
  const cgroups = cgroupKind();
  if ('problem' in cgroups) {
    console.error(`bench:scale stops: ${cgroups.problem}. Each instance needs a CPU cgroup of its own (run as root on Linux with cgroup v1 or v2).`);
    process.exit(2);
  }
  console.log(`cgroup ${cgroups.kind}; quota ${QUOTA} core per instance; ${CONNECTIONS} connections per instance; ${SECONDS} s per run\n`);
  const rows: Row[] = [];
  for (const n of COUNTS) rows.push(await measure(n));
  const one = rows.find((r) => r.instances === 1)?.load.requestsPerSecond;
  console.log('| instances | signs/s | × one (target) | p50 ms | p99 ms | non-2xx + errors | instance CPU per sign, µs (each) | PostgreSQL CPU per sign, µs | PostgreSQL cores busy | commits per sign |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const ratio = one ? r.load.requestsPerSecond / one : NaN;
    const target = TARGETS[r.instances];
    const verdict = target === undefined ? '' : ` (≥ ${target}: ${ratio >= target ? 'met' : 'missed'})`;
    const pgCores = (r.postgresCpu * r.load.requestsPerSecond) / 1e6;
    console.log(
      `| ${r.instances} | ${r.load.requestsPerSecond} | ${ratio.toFixed(2)}${verdict} | ${r.load.p50Ms} | ${r.load.p99Ms} | ${r.load.non2xx + r.load.errors} | ${r.instanceCpu.map((c) => c.toFixed(0)).join(', ')} | ${r.postgresCpu.toFixed(0)} | ${pgCores.toFixed(2)} | ${r.commitsPerSign.toFixed(3)} |`,
    );
  }
  const pgPerSign = rows.reduce((n, r) => n + r.postgresCpu, 0) / rows.length;
  console.log(`\nOne database core carries about ${Math.round(1e6 / pgPerSign)} signs/s at ${pgPerSign.toFixed(0)} µs of PostgreSQL backend CPU per sign (mean over the runs).`);
}

/** Time until two instances under a small sign load serve again once `pg_ctl restart` has returned. */
async function restarts(): Promise<void> {
  if (!PRIVATE_POSTGRES_AVAILABLE) throw new Error('--restart needs PostgreSQL binaries (/usr/lib/postgresql/15/bin) and root, for a cluster of its own');
  const cluster = await startPrivatePostgres();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-bench-restart-'));
  const servers: ChildServer[] = [];
  try {
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE vault');
    await admin.end();
    const env = { VAULT_DATA_DIR: dataDir, VAULT_MASTER_KEY: MASTER_KEY, VAULT_DATABASE_URL: cluster.url('vault'), LOG_LEVEL: 'error' };
    servers.push(await spawnServer(env), await spawnServer(env));
    const sign = await setupVault(env, servers[0]!);
    const oks: { instance: number; started: number }[] = [];
    let running = true;
    const workers = [0, 0, 1, 1].map(async (i) => {
      while (running) {
        const started = performance.now();
        const res = await fetch(`${servers[i]!.url}${sign.path}`, { method: 'POST', headers: sign.headers, body: sign.body, signal: AbortSignal.timeout(30_000) }).catch(() => undefined);
        await res?.arrayBuffer();
        if (res?.status === 200) oks.push({ instance: i, started });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    });
    console.log('| pg_ctl restart | restart took, ms | until both instances signed again (a sign started after it returned answered 200), ms |');
    console.log('|---|---|---|');
    for (const mode of ['fast', 'immediate', 'fast', 'immediate'] as const) {
      const begun = performance.now();
      await cluster.restart(mode);
      const back = performance.now();
      // The first sign started after the database was back that answered 200, per instance (bounded wait).
      const firstOk = (i: number) => oks.filter((o) => o.instance === i && o.started > back).reduce((t, o) => Math.min(t, o.started), Infinity);
      while (![0, 1].every((i) => firstOk(i) < Infinity)) {
        if (performance.now() - back > 60_000) throw new Error(`after pg_ctl restart -m ${mode}, an instance did not sign again within 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      console.log(`| -m ${mode} | ${(back - begun).toFixed(0)} | ${(Math.max(firstOk(0), firstOk(1)) - back).toFixed(0)} |`);
    }
    running = false;
    await Promise.all(workers);
  } finally {
    for (const s of servers) await s.kill('SIGTERM');
    await cluster.remove();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await (opt.restart ? restarts() : scaling());
