import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Stops forwarding: open connections are reset and new ones refused (the database "went away"). */
  cut(): Promise<void>;
  /** New connections are accepted but nothing is forwarded either way (a network black hole). */
  blackhole(): void;
  /** Forwards again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** A TCP proxy a test can cut and restore, to put a network fault between a client and a real server. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let mode: 'forward' | 'blackhole' = 'forward';
  let server: net.Server | undefined;
  let port = 0;

  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const listen = async () => {
    server = net.createServer((client) => {
      track(client);
      if (mode === 'blackhole') return;
      const upstream = net.connect(target.port, target.host);
      track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      const pair: [net.Socket, net.Socket] = [client, upstream];
      pairs.add(pair);
      client.on('close', () => {
        pairs.delete(pair);
        upstream.destroy();
      });
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as net.AddressInfo).port;
  };
  const stop = async () => {
    for (const s of sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
  };

  await listen();
  return {
    get port() {
      return port;
    },
    cut: stop,
    blackhole: () => {
      mode = 'blackhole';
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    restore: async () => {
      mode = 'forward';
      await stop();
      await listen();
    },
    close: stop,
  };
}
