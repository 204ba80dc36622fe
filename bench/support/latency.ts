import http from 'node:http';

export interface LatencyResult {
  readonly label: string;
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly statuses: string;
}

/** One request at a time over a keep-alive connection, each timed with hrtime (sub-millisecond). */
export async function measureLatency(o: {
  label: string;
  url: string;
  headers: Record<string, string>;
  path: () => string;
  requests: number;
}): Promise<LatencyResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(o.url);
  const times: number[] = [];
  const statuses = new Map<number, number>();
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const req = http.request({ hostname, port, path: o.path(), headers: o.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  for (let i = 0; i < Math.min(200, o.requests); i++) await once(); // warm-up
  for (let i = 0; i < o.requests; i++) {
    const started = process.hrtime.bigint();
    const status = await once();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  const at = (q: number) => Number(times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(3));
  return {
    label: o.label,
    requests: o.requests,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    statuses: [...statuses].map(([s, n]) => `${s}×${n}`).join(' '),
  };
}

export function printLatencyTable(rows: readonly LatencyResult[]): void {
  console.log('| scenario | requests | p50 ms | p99 ms | statuses |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.label} | ${r.requests} | ${r.p50Ms} | ${r.p99Ms} | ${r.statuses} |`);
}
