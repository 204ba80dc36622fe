import http from 'node:http';
import https from 'node:https';

/**
 * Kept-alive connections to the chains' RPCs, over node:http rather than fetch: the relay and the
 * simulation before each transaction post one JSON-RPC call per request, and on the benchmark's box a
 * fetch cost ~0.5 ms of CPU where node:http's request cost ~0.07 ms (2 100 against 15 400 eth_call a
 * second to a local anvil at 32 at once; docs/benchmarks.md).
 */
const AGENTS = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
} as const;

/** The RPC took longer than the timeout: what the relay reports as `did not answer … within … ms`. */
export class PostTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/**
 * POSTs `body` (JSON text) to `url` and reads the answer's body, at most `maxBytes`: null as soon as it
 * passes them (a declared Content-Length over the cap included), the connection then dropped, so an
 * answer of any size never holds more than the cap and one chunk in memory (a batch of ten wide
 * eth_getLogs once took the process to 2.3 GiB when answers were buffered whole). The whole exchange is
 * bounded by `timeoutMs` (PostTimeout).
 */
export function postJson(url: string, body: string, timeoutMs: number, maxBytes: number): Promise<Uint8Array | null> {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : null;
  if (transport === null) return Promise.reject(new Error(`unsupported protocol ${target.protocol}`));
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, bytes?: Uint8Array | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(bytes ?? null);
    };
    const request = transport.request(
      target,
      {
        method: 'POST',
        agent: AGENTS[target.protocol as keyof typeof AGENTS],
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        if (Number(response.headers['content-length'] ?? 0) > maxBytes) {
          request.destroy();
          finish(null, null);
          return;
        }
        const chunks: Buffer[] = [];
        let total = 0;
        response.on('data', (chunk: Buffer) => {
          total += chunk.byteLength;
          if (total > maxBytes) {
            chunks.length = 0;
            request.destroy();
            finish(null, null);
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => finish(null, Buffer.concat(chunks, total)));
        response.on('error', (error) => finish(error));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish(new PostTimeout(timeoutMs));
    }, timeoutMs);
    request.on('error', (error) => finish(error));
    request.end(body);
  });
}
