import { createSocket } from 'node:dgram';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** What a receiver took in: each record's seq, hash and prevHash, and the raw message. */
export interface Received {
  readonly seq: number;
  readonly hash: string;
  readonly prevHash: string;
  readonly action: string;
  readonly raw: string;
}

/** The fields of one RFC 5424 message the stream writes (`<110>1 TS HOST APP PID MSGID [audit@32473 …] BOM JSON`). */
export function parseSyslog(message: string): Received {
  const match = /^<110>1 (\S+) (\S+) wallet-vault (\d+) (\S+) \[audit@32473 seq="(\d+)" hash="([0-9a-f]{64})" prevHash="([0-9a-f]{64})"\] \u{FEFF}(.*)$/su.exec(message);
  if (!match) throw new Error(`not an RFC 5424 audit message: ${message.slice(0, 200)}`);
  const body = JSON.parse(match[8]!) as { event: { sequence: number; action: string }; wallet_vault: { audit: { hash: string; prev_hash: string } } };
  if (body.event.sequence !== Number(match[5]) || body.wallet_vault.audit.hash !== match[6] || body.event.action !== match[4]) throw new Error(`structured data and body disagree: ${message}`);
  return { seq: Number(match[5]), hash: match[6]!, prevHash: match[7]!, action: match[4]!, raw: message };
}

/** A syslog listener on TCP (RFC 6587 octet counting) or UDP (one message per datagram), on a port of its own or the one given. */
export async function startSyslogReceiver(transport: 'tcp' | 'udp', port = 0) {
  const received: Received[] = [];
  if (transport === 'udp') {
    const socket = createSocket('udp4');
    socket.on('message', (m) => received.push(parseSyslog(m.toString('utf8'))));
    await new Promise<void>((resolve) => socket.bind(port, '127.0.0.1', resolve));
    const bound = socket.address().port;
    return { url: `udp://127.0.0.1:${bound}`, port: bound, received, close: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
  }
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const space = buffer.indexOf(0x20);
        if (space < 0) return;
        const length = Number(buffer.subarray(0, space).toString('ascii'));
        if (buffer.length < space + 1 + length) return;
        received.push(parseSyslog(buffer.subarray(space + 1, space + 1 + length).toString('utf8')));
        buffer = buffer.subarray(space + 1 + length);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `tcp://127.0.0.1:${bound}`,
    port: bound,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string };
}

/** An OTLP/HTTP logs receiver (JSON encoding) that answers 200, on a port of its own or the one given. */
export async function startOtlpReceiver(port = 0) {
  const received: Received[] = [];
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceLogs: { scopeLogs: { logRecords: { attributes: OtlpAttribute[]; body: { stringValue: string }; eventName: string }[] }[] }[];
      };
      for (const resource of body.resourceLogs)
        for (const scope of resource.scopeLogs)
          for (const record of scope.logRecords) {
            const attr = (key: string) => record.attributes.find((a) => a.key === key)?.value;
            received.push({
              seq: Number(attr('event.sequence')?.intValue),
              hash: attr('wallet_vault.audit.hash')!.stringValue!,
              prevHash: attr('wallet_vault.audit.prev_hash')!.stringValue!,
              action: attr('event.action')!.stringValue!,
              raw: record.body.stringValue,
            });
          }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/v1/logs`,
    port: bound,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
