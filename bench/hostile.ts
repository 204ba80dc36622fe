import { loadavg } from 'node:os';
import { processCpuMicros } from './support/cpu.js';
import { hostileCorpus, type HostileCase } from './support/hostile-corpus.js';
import { printTable, runLoad } from './support/load.js';
import { startService } from './support/sign-servers.js';

/**
 * Issue 14's proof: adversarial bodies up to the body limit against `wallet-vault serve` (one process,
 * SQLite, local keys, defaults), while a steady stream of legitimate signs runs.
 *
 * 1. Server time of each hostile case: `repeats` copies sent one after another to an otherwise idle
 *    server, the server process's CPU time (utime + stime from /proc/<pid>/stat) over them divided by
 *    their number. CPU, not wall time: it is what a request takes from the one event loop, and it barely
 *    moves when other processes share the machine. The slowest case is the figure held to 50 ms.
 * 2. Legitimate signs (autocannon, `connections` connections, `seconds` s): p99 alone, then p99 while
 *    the corpus is sent round-robin by one client, one request at a time, `hostilePerSecond` per second
 *    at most; `rounds` such pairs, interleaved. The ratio of the two p99s of a pair is held to 2.
 * Usage: npm run bench:hostile [-- seconds [hostilePerSecond [repeats [connections [rounds]]]]]
 */
const seconds = Number(process.argv[2] ?? 15);
const hostilePerSecond = Number(process.argv[3] ?? 10);
const repeats = Number(process.argv[4] ?? 20);
const connections = Number(process.argv[5] ?? 4);
const rounds = Number(process.argv[6] ?? 2);

const target = await startService();
try {
  const base = target.request.url.replace(/\/sign$/, '');
  const signer = (JSON.parse(target.request.body!) as { signer: string }).signer;
  const corpus = hostileCorpus(signer);
  const bodyOf = (c: HostileCase, i: number) => (typeof c.body === 'string' ? c.body : c.body(i));
  let sent = 0;
  const send = async (c: HostileCase, i: number): Promise<{ status: number; ms: number }> => {
    sent++;
    const started = performance.now();
    const res = await fetch(`${base}${c.path}`, {
      method: c.method,
      headers: { ...target.request.headers, ...c.headers?.(i) },
      body: bodyOf(c, i),
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - started };
  };

  console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`\n| hostile case | body KB | status | server CPU ms per request (${repeats} sequential) | slowest wall ms |`);
  console.log('|---|---|---|---|---|');
  let slowest = { name: '', cpuMs: 0 };
  for (const c of corpus) {
    const first = await send(c, 1_000_000 + sent);
    if (first.status !== c.expect) throw new Error(`${c.name}: expected ${c.expect}, got ${first.status}`);
    const before = processCpuMicros(target.pid);
    let wall = 0;
    for (let i = 0; i < repeats; i++) wall = Math.max(wall, (await send(c, sent)).ms);
    const after = processCpuMicros(target.pid);
    const cpuMs = before === null || after === null ? NaN : (after - before) / repeats / 1000;
    if (cpuMs > slowest.cpuMs) slowest = { name: c.name, cpuMs };
    console.log(`| ${c.name} | ${Math.round(Buffer.byteLength(bodyOf(c, 0)) / 1024)} | ${first.status} | ${cpuMs.toFixed(1)} | ${wall.toFixed(1)} |`);
  }
  console.log(`\nslowest hostile case: ${slowest.name}: ${slowest.cpuMs.toFixed(1)} ms of server CPU per request (target <= 50)`);

  const legitimate = (label: string) => runLoad({ ...target.request, label, connections, durationSeconds: seconds });
  /** Legitimate signs while the corpus is sent round-robin, one at a time, at most `hostilePerSecond`. */
  const underAttack = async (label: string) => {
    let running = true;
    const statuses = new Map<number, number>();
    let slowestWall = 0;
    const hostile = (async () => {
      for (let n = 0; running; n++) {
        const started = performance.now();
        const { status, ms } = await send(corpus[n % corpus.length]!, sent);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        slowestWall = Math.max(slowestWall, ms);
        const pause = 1000 / hostilePerSecond - (performance.now() - started);
        if (pause > 0) await new Promise((r) => setTimeout(r, pause));
      }
    })();
    try {
      return { load: await legitimate(label), statuses, slowestWall };
    } finally {
      running = false;
      await hostile;
    }
  };
  // Interleaved pairs: on a busy machine the load of other processes drifts, and a pair measured back to
  // back shares most of it.
  const pairs = [];
  for (let round = 1; round <= rounds; round++) {
    const alone = await legitimate(`legitimate signs alone (pair ${round})`);
    const attacked = await underAttack(`legitimate signs + hostile corpus ≤ ${hostilePerSecond}/s (pair ${round})`);
    pairs.push({ alone, attacked });
  }
  console.log('');
  printTable(pairs.flatMap((p) => [p.alone, p.attacked.load]));
  console.log('');
  for (const [i, { alone, attacked }] of pairs.entries()) {
    const sentNow = [...attacked.statuses.values()].reduce((a, b) => a + b, 0);
    console.log(
      `pair ${i + 1}: legitimate p99 ${attacked.load.p99Ms} ms under attack / ${alone.p99Ms} ms alone = ${(attacked.load.p99Ms / alone.p99Ms).toFixed(2)} (target <= 2); ` +
        `${sentNow} hostile requests (${[...attacked.statuses].map(([s, n]) => `${s}×${n}`).join(' ')}), slowest wall ${attacked.slowestWall.toFixed(1)} ms`,
    );
  }
  const health = await fetch(`${base.replace(/\/api\/.*$/, '')}/healthz`);
  console.log(`/healthz after the run: ${health.status}; load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await target.stop();
}
