import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { hostname } from 'node:os';
import { connect, type Socket } from 'node:net';
import type { AuditRecord } from '../../src/ports/audit-log.port.js';
import { streamedAuditRecord, type AuditSink } from './audit-stream-schema.js';

/*
 * RFC 5424 syslog messages over UDP (RFC 5426: one message per datagram, at most MAX_UDP_MESSAGE_BYTES)
 * or TCP (RFC 6587 octet counting: `LEN SP MSG`, so a message may hold any byte and any length), one
 * message per audit record.
 */

/** Facility 13 (log audit) and severity 6 (informational): PRI = 13 * 8 + 6. */
const PRI = 110;
/** The structured data's id: 32473 is the private enterprise number RFC 5612 reserves for documentation. */
export const SD_ID = 'audit@32473';
const BOM = '\u{FEFF}';

/** RFC 5424 §6.2: HOSTNAME and APP-NAME are printable US-ASCII without spaces, NILVALUE when there is none. */
function header(value: string, max: number): string {
  const printable = value.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return printable === '' ? '-' : printable;
}

/** RFC 5424 §6.3.3: `"`, `\` and `]` are escaped in a PARAM-VALUE. */
const paramValue = (value: string) => value.replace(/["\\\]]/g, (c) => `\\${c}`);

/**
 * The largest datagram sent over UDP: RFC 5426 §3.2 has every receiver accept 480 octets and recommends
 * 2048 over IPv4; a larger one may be cut or dropped by a receiver or a path without a word.
 */
export const MAX_UDP_MESSAGE_BYTES = 2048;

/** One record as an RFC 5424 message: MSGID the action, the chain's fields as structured data, the ECS JSON as MSG. */
export function syslogMessage(record: AuditRecord, host = hostname(), pid = process.pid, truncatedFrom?: number): string {
  const cut = truncatedFrom === undefined ? '' : ` truncated="${truncatedFrom}"`;
  const sd = `[${SD_ID} seq="${record.seq}" hash="${paramValue(record.hash)}" prevHash="${paramValue(record.prevHash)}"${cut}]`;
  return `<${PRI}>1 ${record.at.toISOString()} ${header(host, 255)} wallet-vault ${pid} ${header(record.action, 32)} ${sd} ${BOM}${JSON.stringify(streamedAuditRecord(record))}`;
}

/**
 * One record as a UDP datagram of at most `max` bytes. A longer message keeps its header and structured
 * data whole (seq, hash, previous hash: what finds the record again, `wallet-vault audit list` or a replay
 * to a TCP or OTLP sink) and `truncated="<bytes of the whole message>"`, and its MSG is cut at a character
 * boundary: the JSON is then incomplete, and said to be.
 */
export function syslogDatagram(record: AuditRecord, host = hostname(), pid = process.pid, max = MAX_UDP_MESSAGE_BYTES): Buffer {
  const whole = Buffer.from(syslogMessage(record, host, pid), 'utf8');
  if (whole.length <= max) return whole;
  const marked = Buffer.from(syslogMessage(record, host, pid, whole.length), 'utf8');
  let end = max;
  // Back to the first byte of a UTF-8 sequence (continuation bytes are 10xxxxxx), so no character is split.
  while (end > 0 && (marked[end]! & 0xc0) === 0x80) end--;
  return marked.subarray(0, end);
}

/** `udp://host:port` or `tcp://host:port` (VAULT_AUDIT_SYSLOG_URL); throws naming what is wrong. */
export function parseSyslogUrl(text: string): { transport: 'udp' | 'tcp'; host: string; port: number } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`"${text}" is not a URL (expected udp://host:port or tcp://host:port)`);
  }
  const transport = url.protocol.slice(0, -1);
  if (transport !== 'udp' && transport !== 'tcp') throw new Error(`"${text}": the scheme must be udp:// or tcp://`);
  if (url.hostname === '' || url.port === '') throw new Error(`"${text}": a host and a port are required (udp://host:514)`);
  if (url.pathname !== '' && url.pathname !== '/') throw new Error(`"${text}": a syslog URL has no path`);
  return { transport, host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) };
}

/** Delivers records as syslog messages; a TCP connection is kept and made again after it breaks. */
export class SyslogSink implements AuditSink {
  readonly name = 'syslog';
  private tcp: Promise<Socket> | undefined;
  private udp: UdpSocket | undefined;

  constructor(
    private readonly target: { transport: 'udp' | 'tcp'; host: string; port: number },
    private readonly timeoutMs: number,
  ) {}

  async send(records: readonly AuditRecord[]): Promise<void> {
    if (this.target.transport === 'udp') {
      for (const r of records) await this.datagram(syslogDatagram(r));
      return;
    }
    const messages = records.map((r) => Buffer.from(syslogMessage(r), 'utf8'));
    const socket = await this.connection();
    const framed = Buffer.concat(messages.flatMap((m) => [Buffer.from(`${m.length} `), m]));
    await this.bounded(
      new Promise<void>((resolve, reject) => {
        socket.write(framed, (error) => (error ? reject(error) : resolve()));
      }),
      () => socket.destroy(),
    );
  }

  async probe(): Promise<void> {
    // A datagram has no answer: UDP is reachable as far as the stream can tell.
    if (this.target.transport === 'tcp') await this.connection();
  }

  close(): void {
    void this.tcp?.then((s) => s.destroy(), () => undefined);
    this.tcp = undefined;
    this.udp?.close();
    this.udp = undefined;
  }

  /** A connected UDP socket: a receiver that is down comes back as ECONNREFUSED on a later send. */
  private async datagram(message: Buffer): Promise<void> {
    if (!this.udp) {
      const socket = createSocket(this.target.host.includes(':') ? 'udp6' : 'udp4');
      socket.on('error', () => this.dropUdp(socket));
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.connect(this.target.port, this.target.host, () => {
          socket.off('error', reject);
          resolve();
        });
      }).catch((error: unknown) => {
        this.dropUdp(socket);
        throw error;
      });
      this.udp = socket;
    }
    const socket = this.udp;
    await new Promise<void>((resolve, reject) => socket.send(message, (error) => (error ? reject(error) : resolve()))).catch((error: unknown) => {
      this.dropUdp(socket);
      throw error;
    });
  }

  private dropUdp(socket: UdpSocket): void {
    if (this.udp === socket) this.udp = undefined;
    try {
      socket.close();
    } catch {
      // already closed
    }
  }

  private connection(): Promise<Socket> {
    let socket: Socket | undefined;
    this.tcp ??= this.bounded(
      new Promise<Socket>((resolve, reject) => {
        socket = connect({ host: this.target.host, port: this.target.port });
        const connected = socket;
        connected.once('connect', () => {
          connected.off('error', reject);
          // Once connected, any error or close means the next send connects anew.
          connected.on('error', () => connected.destroy());
          connected.on('close', () => {
            if (this.tcp === connecting) this.tcp = undefined;
          });
          resolve(connected);
        });
        connected.once('error', reject);
      }),
      // A connection that did not complete in time is abandoned, not left to complete later.
      () => socket?.destroy(),
    );
    const connecting = this.tcp;
    connecting.catch(() => {
      if (this.tcp === connecting) this.tcp = undefined;
    });
    return connecting;
  }

  private bounded<T>(work: Promise<T>, onTimeout: () => void): Promise<T> {
    let timer: NodeJS.Timeout;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        onTimeout();
        reject(new Error(`syslog ${this.target.transport}://${this.target.host}:${this.target.port}: no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }
}
