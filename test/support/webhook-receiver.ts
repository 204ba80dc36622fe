import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** One request a receiver got: its headers (lower-case names) and raw body. */
export interface Delivery {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** What the receiver answers: a status, or a promise of one (a delivery held open until it settles). */
export type Respond = (delivery: Delivery, index: number) => number | Promise<number>;

export interface Receiver {
  readonly url: string;
  readonly port: number;
  /** Every request received, in arrival order (retries included). */
  readonly deliveries: Delivery[];
  respond: Respond;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 (on `port` when given: a receiver back up where it was). */
export async function startReceiver(respond: Respond = () => 200, port = 0): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const receiver = {
    url: '',
    port: 0,
    deliveries,
    respond,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const delivery = { headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') };
      const index = deliveries.push(delivery) - 1;
      void Promise.resolve(receiver.respond(delivery, index)).then((status) => {
        if (!res.destroyed) res.writeHead(status).end();
      });
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  return receiver;
}

/**
 * Polls `condition` until it holds; fails naming `what` after `limitMs` (a bound, never asserted on). The
 * default ends inside the tests' own 30 s timeout (vitest.config.ts), so a wait that never ends fails
 * naming what it waited for rather than as a bare timeout.
 */
export async function until(condition: () => boolean | Promise<boolean>, what: string, limitMs = 25_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Verify = (headers: Record<string, string>, body: string, jwks: unknown, now?: number) => { id: string; type: string; vaultId: string; timestamp: string; data: Record<string, unknown> };

/**
 * The receiver's verifying snippet exactly as docs/webhooks.md shows it (the ```js block after the
 * `verify-snippet` marker), loaded as a module.
 */
export async function documentedVerifier(): Promise<Verify> {
  const doc = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/webhooks.md'), 'utf8');
  const snippet = /<!-- verify-snippet -->\s*```js\n([\s\S]*?)```/.exec(doc)?.[1];
  if (snippet === undefined) throw new Error('docs/webhooks.md has no verify-snippet block');
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'wallet-vault-webhook-snippet-')), 'verify.mjs');
  writeFileSync(file, snippet);
  return ((await import(pathToFileURL(file).href)) as { verifyWebhook: Verify }).verifyWebhook;
}
