import { describe, expect, it } from 'vitest';
import { syslogMessage } from '../../adapters/audit-stream/syslog.sink.js';
import { otlpLogsRequest } from '../../adapters/audit-stream/otlp.sink.js';
import { loadConfig } from '../../adapters/main/config.js';
import type { AuditRecord } from '../../src/ports/audit-log.port.js';
import { parseSyslog } from '../support/audit-receivers.js';

const record: AuditRecord = {
  seq: 7,
  prevHash: 'a'.repeat(64),
  hash: 'b'.repeat(64),
  action: 'policy.changed',
  at: new Date('2026-05-04T10:00:00.123Z'),
  actor: 'api-key:k1',
  vaultId: 'v1',
  subject: null,
  details: { note: 'a "quoted" ] text\nover two lines', limit: 3, strict: true },
};

describe('audit streaming settings', () => {
  it('take udp:// and tcp:// syslog URLs and http(s) OTLP URLs, and refuse anything else naming the variable', () => {
    expect(loadConfig({ VAULT_AUDIT_SYSLOG_URL: 'udp://127.0.0.1:514' }).auditStream).toEqual({ syslogUrl: 'udp://127.0.0.1:514', otlpUrl: undefined, requireSink: false });
    expect(loadConfig({ VAULT_AUDIT_OTLP_URL: 'http://collector:4318/v1/logs', VAULT_AUDIT_REQUIRE_SINK: 'true' }).auditStream).toMatchObject({ otlpUrl: 'http://collector:4318/v1/logs', requireSink: true });
    expect(loadConfig({}).auditStream).toBeUndefined();
    expect(() => loadConfig({ VAULT_AUDIT_SYSLOG_URL: 'http://127.0.0.1:514' })).toThrow(/VAULT_AUDIT_SYSLOG_URL/);
    expect(() => loadConfig({ VAULT_AUDIT_SYSLOG_URL: 'tcp://127.0.0.1' })).toThrow(/VAULT_AUDIT_SYSLOG_URL/);
    expect(() => loadConfig({ VAULT_AUDIT_OTLP_URL: 'ftp://collector/v1/logs' })).toThrow(/VAULT_AUDIT_OTLP_URL/);
    expect(() => loadConfig({ VAULT_AUDIT_OTLP_URL: 'https://user:secret@collector/v1/logs' })).toThrow(/VAULT_AUDIT_OTLP_URL/);
    // Refusing every write for ever is never what was meant.
    expect(() => loadConfig({ VAULT_AUDIT_REQUIRE_SINK: 'true' })).toThrow(/VAULT_AUDIT_REQUIRE_SINK: needs a sink/);
  });
});

describe('an audit record as the sinks receive it', () => {
  it('is one RFC 5424 message: PRI 110, the record time, MSGID the action, seq and hashes as structured data, the ECS JSON as MSG', () => {
    const message = syslogMessage(record, 'vault host', 4242);
    expect(message.startsWith(`<110>1 2026-05-04T10:00:00.123Z vaulthost wallet-vault 4242 policy.changed [audit@32473 seq="7" hash="${'b'.repeat(64)}" prevHash="${'a'.repeat(64)}"] \u{FEFF}{`)).toBe(true);
    // One line whatever the details hold: JSON escapes the newline.
    expect(message).not.toContain('\n');
    const parsed = parseSyslog(message);
    expect(parsed).toMatchObject({ seq: 7, hash: 'b'.repeat(64), prevHash: 'a'.repeat(64), action: 'policy.changed' });
    const body = JSON.parse(message.slice(message.indexOf('\u{FEFF}') + 1)) as Record<string, unknown>;
    expect(body).toEqual({
      '@timestamp': '2026-05-04T10:00:00.123Z',
      event: { kind: 'event', dataset: 'wallet_vault.audit', action: 'policy.changed', sequence: 7 },
      user: { name: 'api-key:k1' },
      service: { name: 'wallet-vault' },
      wallet_vault: { audit: { seq: 7, hash: 'b'.repeat(64), prev_hash: 'a'.repeat(64), vault: 'v1', subject: null, details: record.details } },
    });
  });

  it('is one OTLP LogRecord with nanosecond times as strings, the action as eventName and ECS attributes', () => {
    const request = JSON.parse(otlpLogsRequest([record])) as {
      resourceLogs: { resource: { attributes: unknown[] }; scopeLogs: { scope: { name: string }; logRecords: Record<string, unknown>[] }[] }[];
    };
    const [resource] = request.resourceLogs;
    expect(resource!.resource.attributes).toEqual([{ key: 'service.name', value: { stringValue: 'wallet-vault' } }]);
    const log = resource!.scopeLogs[0]!.logRecords[0]!;
    expect(log).toMatchObject({ timeUnixNano: '1777888800123000000', severityNumber: 9, eventName: 'policy.changed' });
    expect(log.attributes).toEqual([
      { key: 'event.action', value: { stringValue: 'policy.changed' } },
      { key: 'event.sequence', value: { intValue: '7' } },
      { key: 'event.dataset', value: { stringValue: 'wallet_vault.audit' } },
      { key: 'user.name', value: { stringValue: 'api-key:k1' } },
      { key: 'wallet_vault.audit.hash', value: { stringValue: 'b'.repeat(64) } },
      { key: 'wallet_vault.audit.prev_hash', value: { stringValue: 'a'.repeat(64) } },
      { key: 'wallet_vault.audit.vault', value: { stringValue: 'v1' } },
    ]);
  });
});
