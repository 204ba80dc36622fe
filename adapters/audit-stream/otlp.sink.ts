import type { AuditRecord } from '../../src/ports/audit-log.port.js';
import { streamedAuditRecord, type AuditSink } from './audit-stream-schema.js';

/*
 * OpenTelemetry logs over OTLP/HTTP with the JSON encoding (opentelemetry-proto's
 * ExportLogsServiceRequest, as the OTLP specification maps protobuf to JSON: 64-bit integers as strings,
 * enums as numbers, hex ids), POSTed to the collector's logs URL (`http://collector:4318/v1/logs`).
 */

/** SEVERITY_NUMBER_INFO. */
const INFO = 9;
/** At most this much of an answer is read (and discarded). */
const MAX_ANSWER_BYTES = 4096;

type AnyValue = { stringValue: string } | { intValue: string } | { boolValue: boolean } | { doubleValue: number };
const attribute = (key: string, value: string | number | boolean | null): { key: string; value: AnyValue } | undefined => {
  if (value === null) return undefined;
  if (typeof value === 'string') return { key, value: { stringValue: value } };
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  return { key, value: Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value } };
};

/** One record as an OTLP LogRecord: the ECS JSON as its body, its fields as attributes (ECS names). */
export function otlpLogRecord(record: AuditRecord): object {
  const nanos = `${BigInt(record.at.getTime()) * 1_000_000n}`;
  const attributes = [
    attribute('event.action', record.action),
    attribute('event.sequence', record.seq),
    attribute('event.dataset', 'wallet_vault.audit'),
    attribute('user.name', record.actor),
    attribute('wallet_vault.audit.hash', record.hash),
    attribute('wallet_vault.audit.prev_hash', record.prevHash),
    attribute('wallet_vault.audit.vault', record.vaultId),
    attribute('wallet_vault.audit.subject', record.subject),
  ].filter((a) => a !== undefined);
  return {
    timeUnixNano: nanos,
    observedTimeUnixNano: nanos,
    severityNumber: INFO,
    severityText: 'INFO',
    eventName: record.action,
    body: { stringValue: JSON.stringify(streamedAuditRecord(record)) },
    attributes,
  };
}

export function otlpLogsRequest(records: readonly AuditRecord[]): string {
  return JSON.stringify({
    resourceLogs: [
      {
        resource: { attributes: [attribute('service.name', 'wallet-vault')] },
        scopeLogs: [{ scope: { name: 'wallet-vault.audit' }, logRecords: records.map(otlpLogRecord) }],
      },
    ],
  });
}

/** `http(s)://…` (VAULT_AUDIT_OTLP_URL); throws naming what is wrong. */
export function parseOtlpUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`"${text}" is not a URL (expected http://collector:4318/v1/logs)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`"${text}": the scheme must be http:// or https://`);
  if (url.username !== '' || url.password !== '') throw new Error(`"${text}": credentials do not belong in the URL`);
  return url.toString();
}

export class OtlpSink implements AuditSink {
  readonly name = 'otlp';
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  send(records: readonly AuditRecord[]): Promise<void> {
    return this.post(otlpLogsRequest(records));
  }

  /** An export of no records: a collector answers it 2xx as it would a batch. */
  probe(): Promise<void> {
    return this.post(JSON.stringify({ resourceLogs: [] }));
  }

  close(): void {}

  private async post(body: string): Promise<void> {
    let answer: Response;
    try {
      answer = await fetch(this.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: { 'content-type': 'application/json', 'user-agent': 'wallet-vault-audit-stream' },
        body,
      });
    } catch (error) {
      throw new Error(`OTLP ${this.url}: ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}`);
    }
    await discard(answer);
    if (answer.status < 200 || answer.status >= 300) throw new Error(`OTLP ${this.url}: HTTP ${answer.status}`);
  }
}

async function discard(answer: Response): Promise<void> {
  if (!answer.body) return;
  const reader = answer.body.getReader();
  let read = 0;
  try {
    while (read < MAX_ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
