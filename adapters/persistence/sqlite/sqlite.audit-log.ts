import type { Statement } from 'better-sqlite3';
import { chainedAfter, prepareAuditEvent, type ChainHead, type PreparedAuditEvent } from '../../../src/domain/audit-chain.js';
import type { AuditEvent, AuditLog, AuditRecord } from '../../../src/ports/audit-log.port.js';
import { AUDIT_COLUMNS as COLUMNS, fromMillis, toAuditRecord, type AuditRow } from '../shared/rows.js';
import { commitQueueOf, type QueuedWrite, type SqliteCommitQueue, type TransactionScope } from './sqlite.commit-queue.js';
import { runSql as run, type SqliteDatabase } from './sqlite.database.js';

// The transaction's chain head is one per connection, whichever SqliteAuditLog instance appends.
const CHAIN_HEAD = {};

/**
 * The hash-chained audit trail. Appends are group-committed through the connection's commit queue, in
 * the same transaction as SqliteSignatureLog's records (one fsync per turn of the event loop for both),
 * because signature.issued is appended on the sign path. Each append reads the chain head and extends it
 * inside the queue's IMMEDIATE transaction, which holds the database write lock from the first read on:
 * an operator command appending through its own connection waits for it and chains after it, so the
 * chain never forks and seq never skips. The head is read once per transaction: the appends after the
 * first in the same transaction chain on the record the previous one inserted.
 */
export class SqliteAuditLog implements AuditLog {
  private readonly commits: SqliteCommitQueue;
  private readonly head: Statement;
  private readonly insert: Statement;
  private readonly listAll: Statement;
  private readonly listVault: Statement;

  constructor(db: SqliteDatabase) {
    this.commits = commitQueueOf(db);
    this.head = db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
    this.insert = db.prepare(
      // Positional: binding a row by name costs a lookup per column, on every sign.
      `INSERT INTO audit_log (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.listAll = db.prepare(`SELECT ${COLUMNS} FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?`);
    this.listVault = db.prepare(`SELECT ${COLUMNS} FROM audit_log WHERE vault_id = ? AND seq > ? ORDER BY seq LIMIT ?`);
  }

  append(event: AuditEvent): Promise<void> {
    let write: QueuedWrite;
    try {
      write = this.writeOf(event);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.commits.enqueue(write);
  }

  /**
   * The write that chains `event` inside a commit-queue transaction on this connection, for a caller that
   * stores it together with its own rows (SqliteSignatureLog). The event is checked now, so one that
   * cannot be stored throws here rather than failing a whole batch, and prepared: what is hashed and
   * stored is the event as it was when handed over.
   */
  writeOf(event: AuditEvent): QueuedWrite {
    const prepared = prepareAuditEvent(event);
    return (transaction) => this.chain(prepared, transaction);
  }

  /**
   * Runs inside the queue's IMMEDIATE transaction: the head cannot move between its read and the insert.
   * The transaction's scope is fresh for every transaction, so the head is read again after a rollback
   * and after whatever another connection appended between two transactions.
   */
  private chain(e: PreparedAuditEvent, transaction: TransactionScope): void {
    const head = transaction.get(CHAIN_HEAD, () => (this.head.get() as ChainHead | undefined) ?? null);
    const r = chainedAfter(head, e);
    // The details are stored as hashed: canonical JSON (keys sorted).
    this.insert.run(r.seq, r.atMillis, r.actor, r.vaultId, r.subject, r.action, r.detailsJson, r.prevHash, r.hash);
    transaction.set(CHAIN_HEAD, r);
  }

  list(query: { readonly afterSeq: number; readonly limit: number; readonly vaultId?: string }): Promise<AuditRecord[]> {
    return run(() => {
      const rows = (
        query.vaultId === undefined
          ? this.listAll.all(query.afterSeq, query.limit)
          : this.listVault.all(query.vaultId, query.afterSeq, query.limit)
      ) as AuditRow<number>[];
      return rows.map((r) => toAuditRecord(r, fromMillis));
    });
  }
}
