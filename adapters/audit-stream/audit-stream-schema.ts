import type { AuditRecord } from '../../src/ports/audit-log.port.js';

/**
 * An audit record as the sinks receive it (docs/operations.md "Audit streaming"): Elastic Common Schema
 * names where one fits (`@timestamp`, `event.action`, `event.sequence`, `user.name`), the rest under
 * `wallet_vault.audit`, with the chain's `hash` and `prev_hash` so a receiver can verify the chain by itself.
 */
export interface StreamedAuditRecord {
  readonly '@timestamp': string;
  readonly event: { readonly kind: 'event'; readonly dataset: 'wallet_vault.audit'; readonly action: string; readonly sequence: number };
  readonly user: { readonly name: string };
  readonly service: { readonly name: 'wallet-vault' };
  readonly wallet_vault: {
    readonly audit: {
      readonly seq: number;
      readonly hash: string;
      readonly prev_hash: string;
      readonly vault: string | null;
      readonly subject: string | null;
      readonly details: AuditRecord['details'];
    };
  };
}

export function streamedAuditRecord(record: AuditRecord): StreamedAuditRecord {
  return {
    '@timestamp': record.at.toISOString(),
    event: { kind: 'event', dataset: 'wallet_vault.audit', action: record.action, sequence: record.seq },
    user: { name: record.actor },
    service: { name: 'wallet-vault' },
    wallet_vault: { audit: { seq: record.seq, hash: record.hash, prev_hash: record.prevHash, vault: record.vaultId, subject: record.subject, details: record.details } },
  };
}

/** What a sink the stream delivers to does: one batch at a time, in `seq` order, resolved once accepted. */
export interface AuditSink {
  /** `syslog` or `otlp`: the cursor's name and the metrics' label. */
  readonly name: string;
  /** Resolves once the receiver took every record (TCP: written; UDP: sent; OTLP: a 2xx); rejects otherwise. */
  send(records: readonly AuditRecord[]): Promise<void>;
  /** Resolves when the receiver can be reached, without sending a record (an instance that does not stream asks). */
  probe(): Promise<void>;
  close(): void;
}
