import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** Opens a connection and resolves once it is established. */
async function connect(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await once(socket, 'connect');
  return socket;
}

/** Everything the server sends on `socket` until it closes the connection. */
function untilClosed(socket: net.Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks).toString())));
}

describe('a client that trickles its headers', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('is cut off by the documented 20 s header timeout, not held for node’s 30 s check interval on top', async () => {
    // Node checks the timeout on an interval that starts with the server. Starting 11 s in, a check only
    // every 30 s would close the connection at the 60 s check, 49 s in; one every second closes it ~20 s in.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    const socket = await connect(s.url);
    const closed = untilClosed(socket);
    socket.write('GET /healthz HTTP/1.1\r\nHost: vault\r\n');
    const started = Date.now();
    // One header line a second, never the blank line that ends the head.
    let n = 0;
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(`X-Slow-${n++}: a\r\n`);
    }, 1000);
    try {
      const answer = await Promise.race([closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), 40_000))]);
      const seconds = (Date.now() - started) / 1000;
      expect(answer, `still open after ${seconds} s`).not.toBeNull();
      expect(answer).toMatch(/^HTTP\/1\.1 408 /); // node answers Request Timeout, then closes
      expect(answer).toMatch(/\{"success":false,"error":"request was not received in time","code":"REQUEST_TIMEOUT"\}$/);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  }, 90_000);
});

describe('VAULT_MAX_CONNECTIONS', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { VAULT_MAX_CONNECTIONS: '2' } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('closes connections past the cap at once, and serves new ones when a connection is gone', async () => {
    const held = [await connect(s.url), await connect(s.url)];
    const excess = await connect(s.url);
    const closed = untilClosed(excess);
    excess.write('GET /healthz HTTP/1.1\r\nHost: vault\r\n\r\n');
    expect(await closed).toBe(''); // closed without an answer
    held[0]!.destroy();
    // Raw connections: the server notices the freed slot a moment later, and a connection it drops
    // meanwhile must end the attempt (fetch may wait on one).
    const healthz = async () => {
      const socket = await connect(s.url);
      const answered = new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())));
      socket.write('GET /healthz HTTP/1.1\r\nHost: vault\r\nConnection: close\r\n\r\n');
      const answer = await Promise.race([answered, untilClosed(socket)]);
      socket.destroy();
      return answer.split('\r\n')[0];
    };
    await expect.poll(healthz, { timeout: 10_000 }).toBe('HTTP/1.1 200 OK');
    held[1]!.destroy();
  });
});

describe('VAULT_METRICS_TOKEN', () => {
  const token = 'a-metrics-token-of-some-length';
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { VAULT_METRICS_TOKEN: token } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('guards /metrics: 401 without the token or with another, the exposition with it', async () => {
    const none = await client(s.url).get('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="wallet-vault"');
    const wrong = await client(s.url).get('/metrics', { authorization: `Bearer ${token}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="wallet-vault", error="invalid_token"');
    expect((await client(s.url).get('/metrics', { authorization: token })).status).toBe(401);
    const ok = await client(s.url).get('/metrics', { authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('wallet_vault_info');
  });

  it('leaves /healthz and /readyz answering anyone', async () => {
    expect((await client(s.url).get('/healthz')).status).toBe(200);
    expect((await client(s.url).get('/readyz')).body).toEqual({ status: 'ready' });
  });
});
