import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, PostTimeout } from '../../adapters/chain/json-post.js';

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;

/**
 * postJson, how the relay and the simulation read a chain RPC's answer: at most the cap (a body streamed
 * past it is cut, the connection dropped), within the timeout. The server streams bodies as asked and
 * records how much of each it managed to write.
 */
describe('postJson', () => {
  let server: Server;
  let url: string;
  const written: number[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const ask = new URL(req.url!, 'http://x');
      const total = Number(ask.searchParams.get('bytes') ?? 0);
      if (ask.searchParams.has('hang')) return;
      const declared = ask.searchParams.has('declared');
      res.writeHead(200, declared ? { 'content-length': String(total) } : {});
      let sent = 0;
      const index = written.push(0) - 1;
      const pump = () => {
        while (sent < total) {
          const size = Math.min(CHUNK, total - sent);
          sent += size;
          written[index] = sent;
          if (!res.write(Buffer.alloc(size, 0x61))) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      req.resume().on('end', pump);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('returns a body at or under the cap whole', async () => {
    expect((await postJson(`${url}/?bytes=${MiB}`, '{}', 5000, MiB))?.byteLength).toBe(MiB);
    expect((await postJson(`${url}/?bytes=0`, '{}', 5000, 10))?.byteLength).toBe(0);
  });

  it('stops at the cap: of a 64 MiB answer it reads no more than the cap, and the server cannot send it whole', async () => {
    expect(await postJson(`${url}/?bytes=${64 * MiB}`, '{}', 5000, MiB)).toBeNull();
    // The socket is dropped at the cap: what the server wrote is bounded by its buffers, far below 64 MiB.
    await new Promise((r) => setTimeout(r, 50));
    expect(written.at(-1)!).toBeLessThan(32 * MiB);
    // A declared length over the cap is refused unread.
    expect(await postJson(`${url}/?bytes=${2 * MiB}&declared`, '{}', 5000, MiB)).toBeNull();
  });

  it('gives up after the timeout (PostTimeout) when the server does not answer', async () => {
    await expect(postJson(`${url}/?hang`, '{}', 100, MiB)).rejects.toBeInstanceOf(PostTimeout);
  });
});
