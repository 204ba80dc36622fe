import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cliJson, migrateStore, spawnServer } from '../test/support/cli.js';
import { SIGN_ABI, SIGN_ARGS, SIGN_CONTRACT, SIGN_SENDER, SIGN_UNIQ } from './support/sign-request.js';

/**
 * Soak: mixed traffic (create, list, get, rename, sign, expire, unexpire) from 16 clients against
 * `wallet-vault serve` in its own process, sampling the server's RSS and heap from its own /metrics every
 * few seconds, then comparing the first quartile of the samples (after a warm-up of a fifth of the run,
 * at most 60 s) with the last: memory that keeps growing under steady traffic is a leak.
 * Usage: npm run bench:soak [-- seconds]   (default 600)
 */
const seconds = Number(process.argv[2] ?? 600);
const CLIENTS = 16;
const SAMPLE_MS = Math.round(Math.min(5, Math.max(1, seconds / 20)) * 1000);
/** Growth from the first to the last quartile still called flat: GC timing moves the heap by this much. */
const TOLERANCE = 0.1;

interface Sample {
  readonly at: number;
  readonly rss: number;
  readonly heap: number;
}

const metric = (text: string, name: string) => {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
};
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-soak-'));
try {
  const env = { VAULT_DATA_DIR: dataDir };
  await migrateStore(env);
  const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'soak'], env);
  const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], env);
  const server = await spawnServer(env);
  const base = `${server.url}/api/v1/vaults/${vault.id}`;
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const call = async (method: string, url: string, body?: unknown) => {
    const r = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await r.json()) as { data?: { address?: string } };
    return { ok: r.status === 200, json };
  };

  const signers: string[] = [];
  for (let i = 0; i < 8; i++) signers.push((await call('POST', `${base}/wallets`, { name: `signer ${i}` })).json.data!.address!);
  const known: string[] = [...signers];

  const counts = new Map<string, { ok: number; failed: number }>();
  const count = (op: string, ok: boolean) => {
    const c = counts.get(op) ?? { ok: 0, failed: 0 };
    if (ok) c.ok++;
    else c.failed++;
    counts.set(op, c);
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;
  // Weights: signing dominates, as in production; the lifecycle calls keep every code path warm.
  const ops: [string, number, () => Promise<boolean>][] = [
    ['sign', 50, async () => (await call('POST', `${base}/sign`, { chain: 'local', contract: SIGN_CONTRACT, sender: SIGN_SENDER, uniq: SIGN_UNIQ, signer: pick(signers), abi: SIGN_ABI, args: SIGN_ARGS })).ok],
    ['create', 10, async () => {
      const r = await call('POST', `${base}/wallets`, { name: 'soak' });
      if (r.ok && known.length < 50_000) known.push(r.json.data!.address!);
      return r.ok;
    }],
    ['get', 15, async () => (await call('GET', `${base}/wallets/${pick(known)}`)).ok],
    ['list', 10, async () => (await call('GET', `${base}/wallets?offset=${Math.floor(Math.random() * known.length)}&count=50`)).ok],
    ['rename', 5, async () => (await call('PUT', `${base}/wallets/${pick(known)}`, { name: `renamed ${Date.now()}` })).ok],
    ['expire', 5, async () => (await call('DELETE', `${base}/wallets/${pick(known.slice(signers.length)) ?? signers[0]}`)).ok],
    ['unexpire', 5, async () => (await call('POST', `${base}/wallets/${pick(known)}`)).ok],
  ];
  const total = ops.reduce((a, [, w]) => a + w, 0);
  const choose = () => {
    let r = Math.random() * total;
    for (const op of ops) if ((r -= op[1]) < 0) return op;
    return ops[0]!;
  };

  const samples: Sample[] = [];
  const started = Date.now();
  const sample = async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    samples.push({ at: (Date.now() - started) / 1000, rss: metric(text, 'process_resident_memory_bytes'), heap: metric(text, 'nodejs_heap_size_used_bytes') });
  };
  const sampler = setInterval(() => void sample(), SAMPLE_MS);
  const deadline = started + seconds * 1000;
  const client = async () => {
    while (Date.now() < deadline) {
      const [name, , run] = choose();
      count(name, await run().catch(() => false));
    }
  };
  console.log(`soak: ${seconds} s, ${CLIENTS} clients, sampling every ${SAMPLE_MS / 1000} s`);
  await Promise.all(Array.from({ length: CLIENTS }, client));
  clearInterval(sampler);
  await sample();
  const elapsed = (Date.now() - started) / 1000;
  await server.kill('SIGTERM');

  console.log('\n| operation | ok | failed |\n|---|---|---|');
  let requests = 0;
  for (const [op, c] of [...counts].sort()) {
    requests += c.ok + c.failed;
    console.log(`| ${op} | ${c.ok} | ${c.failed} |`);
  }
  console.log(`\n${requests} requests in ${elapsed.toFixed(0)} s (${Math.round(requests / elapsed)} req/s)`);
  console.log('\n| t (s) | RSS MiB | heap used MiB |\n|---|---|---|');
  for (const s of samples) console.log(`| ${s.at.toFixed(0)} | ${mib(s.rss)} | ${mib(s.heap)} |`);

  // The first samples are warm-up (JIT, SQLite's page cache, the key cache filling), not a trend.
  const warmUp = Math.min(60, seconds / 5);
  const steady = samples.filter((s) => s.at >= warmUp);
  const q = Math.max(1, Math.floor(steady.length / 4));
  const first = steady.slice(0, q);
  const last = steady.slice(-q);
  console.log(`\nquartiles of the ${steady.length} samples after a ${warmUp.toFixed(0)} s warm-up:`);
  let flat = true;
  for (const key of ['rss', 'heap'] as const) {
    const a = mean(first.map((s) => s[key]));
    const b = mean(last.map((s) => s[key]));
    const growth = (b - a) / a;
    flat &&= growth <= TOLERANCE;
    console.log(`${key}: first quartile ${mib(a)} MiB, last quartile ${mib(b)} MiB, ${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%`);
  }
  console.log(`memory ${flat ? 'FLAT' : 'GROWING'} (last quartile within ${TOLERANCE * 100}% of the first: ${flat ? 'yes' : 'no'})`);
  if (!flat) process.exitCode = 1;
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
