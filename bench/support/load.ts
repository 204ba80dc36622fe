import autocannon from 'autocannon';

export interface LoadResult {
  readonly label: string;
  readonly connections: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly total: number;
  readonly non2xx: number;
  readonly errors: number;
}

export interface LoadOptions {
  readonly label: string;
  readonly url: string;
  readonly connections: number;
  /** How long to drive the server; ignored when `amount` is given. */
  readonly durationSeconds?: number;
  /** Send exactly this many requests instead of running for a duration. */
  readonly amount?: number;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Picks a fresh path per request (random wallet, random page). */
  readonly path?: () => string;
}

/** Drives the server from this process with autocannon (a second process from the server's). */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: o.url,
    connections: o.connections,
    ...(o.amount === undefined ? { duration: o.durationSeconds } : { amount: o.amount }),
    method: o.method ?? 'GET',
    headers: o.headers,
    body: o.body,
    requests: o.path ? [{ setupRequest: (req) => ({ ...req, path: o.path!() }) }] : undefined,
  });
  return {
    label: o.label,
    connections: o.connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function printTable(rows: readonly LoadResult[]): void {
  console.log('| scenario | connections | req/s | p50 ms | p99 ms | requests | non-2xx | errors |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.label} | ${r.connections} | ${r.requestsPerSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.total} | ${r.non2xx} | ${r.errors} |`);
  }
}

/** The median of a few figures (the rounds of a benchmark). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}
