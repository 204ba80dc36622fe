import { createSocket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { MAX_UDP_MESSAGE_BYTES, SyslogSink, syslogMessage } from '../../adapters/audit-stream/syslog.sink.js';
import type { AuditRecord } from '../../src/ports/audit-log.port.js';
import { until } from '../support/webhook-receiver.js';

const record = (seq: number, details: Record<string, string>): AuditRecord => ({
  action: 'policy.changed',
  at: new Date('2026-12-03T10:00:00.000Z'),
  actor: 'operator:alice',
  vaultId: '0190f7e2-5b7a-7c3e-9d4f-2a1b3c4d5e6f',
  subject: '0190f7e2-5b7a-7c3e-9d4f-2a1b3c4d5e6f',
  details,
  seq,
  prevHash: 'a'.repeat(64),
  hash: 'b'.repeat(64),
});

/*
 * RFC 5426 over UDP: a datagram is at most MAX_UDP_MESSAGE_BYTES (2048). A longer record's message keeps
 * its header and structured data whole (seq, hash, previous hash, and `truncated` with the whole message's
 * length) and its MSG is cut at a character boundary; a shorter one is sent as it is. Over a real UDP
 * listener, as a receiver sees the bytes.
 */
describe('syslog over UDP: the datagram size bound', () => {
  it('sends a small record whole and a large one cut to 2048 bytes, structured data intact, no character split', async () => {
    const datagrams: Buffer[] = [];
    const listener = createSocket('udp4');
    listener.on('message', (m) => datagrams.push(m));
    await new Promise<void>((resolve) => listener.bind(0, '127.0.0.1', resolve));
    const sink = new SyslogSink({ transport: 'udp', host: '127.0.0.1', port: listener.address().port }, 5_000);
    try {
      const small = record(1, { document: 'short' });
      // Three-byte characters: a cut at byte 2048 would fall inside one unless it backs off to a boundary.
      const large = record(2, { document: '€'.repeat(3000) });
      await sink.send([small, large]);
      await until(() => datagrams.length >= 2, 'both datagrams');

      expect(datagrams[0]!.toString('utf8')).toBe(syslogMessage(small));
      const whole = Buffer.byteLength(syslogMessage(large), 'utf8');
      expect(whole).toBeGreaterThan(MAX_UDP_MESSAGE_BYTES);
      const cut = datagrams[1]!;
      expect(MAX_UDP_MESSAGE_BYTES).toBe(2048);
      expect(cut.length).toBeLessThanOrEqual(MAX_UDP_MESSAGE_BYTES);
      expect(cut.length).toBeGreaterThan(MAX_UDP_MESSAGE_BYTES - 3);
      const text = new TextDecoder('utf-8', { fatal: true }).decode(cut);
      expect(text).toMatch(new RegExp(`^<110>1 2026-12-03T10:00:00.000Z \\S+ wallet-vault \\d+ policy\\.changed \\[audit@32473 seq="2" hash="${'b'.repeat(64)}" prevHash="${'a'.repeat(64)}" truncated="${whole}"\\] \\u{FEFF}\\{`, 'u'));
      expect(text.endsWith('€')).toBe(true);
    } finally {
      sink.close();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });
});
