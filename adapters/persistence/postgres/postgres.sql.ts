import type pg from 'pg';
import { appendChained, type ChainedEvent, type ChainHead, type PreparedAuditEvent } from '../../../src/domain/audit-chain.js';
import { isDomainError } from '../../../src/domain/errors.js';
import { fenceBroken, vaultFrozen, type FreezeFence } from '../../../src/ports/freeze-fence.js';
import type { FreezeCount } from '../../../src/ports/governance-store.port.js';
import type { WalletPage } from '../../../src/ports/wallet-repository.port.js';
import { AuditListeners } from '../sql/audit-watch.js';
import { FREEZE_COLUMNS, freezeCountOf, freezesKey } from '../sql/freeze-counts.js';
import { SerialGroupCommit, writeBatchOrEachAlone, type Pending } from '../sql/group-commit.js';
import { asDate, AUDIT, rowPlaceholders, SIGNATURES, WALLETS, type InstantDecoder } from '../sql/rows.js';
import { seamPerDatabase, type DurableWrite, type SqlDatabase, type SqlSession, type WalletPages } from '../sql/sql-database.js';
import { noteLocalCommit } from '../sql/local-commits.js';
import { TurnSharedReads } from '../sql/turn-shared-reads.js';
import { PostgresApiKeyCache } from './postgres.api-key-cache.js';
import type { PostgresDatabase } from './postgres.database.js';

// Any constant unique to this use; advisory locks of other purposes use other keys.
const AUDIT_HEAD_LOCK = 0x61756469746c6fn; // "auditlo"
/** The first key of serialTransaction's locks (the second is the name's hash): apart from the job locks' "job". */
const SERIAL_LOCK_NAMESPACE = 0x736572; // "ser"
/** Writes per batch: far below PostgreSQL's 65 535 parameters, more than a turn's burst. */
const MAX_BATCH = 500;
const VISIBLE = '(expires IS NULL OR expires > $2)';
// One statement is one snapshot: the page and the total agree even while other instances create. The
// total row is always there, so an offset past the end still reports the count.
const PAGE = `SELECT t.total, ${WALLETS.of('p')}
  FROM (SELECT count(*) AS total FROM wallets WHERE vault_id = $1 AND ${VISIBLE}) t
  LEFT JOIN LATERAL (
    ${WALLETS.select} WHERE vault_id = $1 AND ${VISIBLE} ORDER BY created, id LIMIT $3 OFFSET $4
  ) p ON true
  ORDER BY p.created, p.id`;
const COUNT = `SELECT count(*) AS n FROM wallets WHERE vault_id = $1 AND ${VISIBLE}`;

const sessionOf = (client: { query(text: string, values?: unknown[]): Promise<pg.QueryResult> }): SqlSession => ({
  all: async <R>(sql: string, params?: readonly unknown[]) => (await client.query(sql, params as unknown[])).rows as R[],
  run: async (sql, params) => (await client.query(sql, params as unknown[])).rowCount ?? 0,
});

/**
 * The SQL seam on a PostgreSQL pool, shared by every instance on the database. The sign path's writes are
 * group-committed one batch in flight at a time: the writes submitted while the previous batch was being
 * written go together, in one transaction under the audit head lock, in three round trips whatever the
 * batch's size: BEGIN + lock + head, one statement inserting the signatures and the chained audit records
 * (a CTE), and COMMIT. An append on another instance waits for the lock and chains after this one, so the
 * chain never forks and seq never skips; the lock goes with commit or rollback, also when the connection
 * dies. Each caller is answered only after the commit, and a bad write fails alone; the audit records of
 * a write are told to `watchAudit` after its COMMIT returned, never of one rolled back.
 */
export class PostgresSql implements SqlDatabase {
  readonly instant = asDate as InstantDecoder<unknown>;
  private readonly audits = new AuditListeners();
  readonly watchAudit = this.audits.watch;
  // An unreachable database (a DomainError) fails every caller at once, without a retry storm.
  private readonly batches = new SerialGroupCommit<DurableWrite>((batch) => writeBatchOrEachAlone(batch, this.insertBatch, isDomainError), MAX_BATCH);
  private readonly pool: SqlSession;
  /** A vault's freeze count, read once per turn of the event loop for all the signs of that turn. */
  readonly guardedReads = new TurnSharedReads();

  /**
   * `apiKeyCache`: the API key lookups from memory, kept exact by the database's push (default: one with
   * the default lifetime; tests give their own). Its listener connection ends when `db` closes.
   */
  constructor(
    readonly db: PostgresDatabase,
    readonly apiKeyCache: PostgresApiKeyCache = new PostgresApiKeyCache(db),
  ) {
    this.pool = sessionOf(db);
    db.whenClosing(() => apiKeyCache.close());
  }

  all<R>(sql: string, params?: readonly unknown[]): Promise<R[]> {
    return this.pool.all<R>(sql, params);
  }

  run(sql: string, params?: readonly unknown[]): Promise<number> {
    return this.pool.run(sql, params).then(committed);
  }

  runGrouped(sql: string, params: readonly unknown[]): Promise<number> {
    return this.run(sql, params);
  }

  jsonArray(fields: Record<string, string>, from: string): string {
    const object = Object.entries(fields).map(([name, column]) => `'${name}', ${column}`);
    return `COALESCE((SELECT json_agg(json_build_object(${object.join(', ')})) ${from}), '[]'::json)`;
  }

  transaction<T>(work: (tx: SqlSession) => Promise<T>): Promise<T> {
    return this.db.transaction((client) => work(sessionOf(client))).then(committed);
  }

  serialTransaction<T>(name: string, work: (tx: SqlSession) => Promise<T>): Promise<T> {
    return this.transaction(async (tx) => {
      await tx.all('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SERIAL_LOCK_NAMESPACE, name]);
      return work(tx);
    });
  }

  commitDurable(write: DurableWrite): Promise<void> {
    // The batch answers once its COMMIT returned: only then is the write's event told.
    return this.audits.afterDurable(this.batches.submit(write), write.event);
  }

  /**
   * The audit head lock is taken at the end, after `work`'s statements: held for the chaining and the commit
   * only. The fence's freeze count is read under it, in the same round trip.
   */
  async auditedTransaction<T>(work: (tx: SqlSession, audit: (event: PreparedAuditEvent) => void) => Promise<T>, fence?: FreezeFence | null): Promise<T> {
    const events: PreparedAuditEvent[] = [];
    const value = await this.db.transaction(async (client) => {
      const value = await work(sessionOf(client), (event) => events.push(event));
      if (events.length > 0 || fence) {
        const vaults = fence ? [fence.vaultId] : [];
        const { head, also } = await lockedHead(client, '', fenceCounts(client, vaults));
        if (fence && fenceBroken(fence, this.countsOf(vaults, also).get(fence.vaultId)!.frozen)) throw vaultFrozen(fence.vaultId);
        if (events.length > 0) {
          const audit = auditInsert(appendChained(head, events), 1);
          await client.query(audit.text, audit.values);
        }
      }
      return value;
    });
    // COMMIT has returned: durable. A rollback threw past this line.
    noteLocalCommit();
    this.audits.afterCommit(events);
    return value;
  }

  ping(): Promise<void> {
    return this.db.ping();
  }

  readonly walletPages: WalletPages = {
    list: async (vaultId: string, now: Date, offset: number, limit: number): Promise<WalletPage> => {
      const rows = await this.all<{ id: string | null; total: string }>(PAGE, [vaultId, now, limit, offset]);
      return { count: Number(rows[0]?.total ?? 0), page: rows.filter((r) => r.id !== null).map((r) => WALLETS.read(r, this.instant)) };
    },
    count: async (vaultId: string, now: Date) => Number((await this.all<{ n: string }>(COUNT, [vaultId, now]))[0]!.n),
  };

  /**
   * Inserts `items`' signatures and chained events in one statement (one transaction), then answers them.
   * The freeze rows of the vaults of fenced items are counted in the round trip that takes the lock: an
   * item whose vault was frozen since its check is left out and refused (VAULT_FROZEN), the others written.
   */
  private readonly insertBatch = async (items: Pending<DurableWrite>[]): Promise<void> => {
    const fenced = [...new Set(items.flatMap((p) => (p.item.fence ? [p.item.fence.vaultId] : [])))];
    if (fenced.length === 0 && !items.some((p) => p.item.event)) {
      await this.db.query(`INSERT INTO signatures (${SIGNATURES.columns}) VALUES ${rowPlaceholders(items.length, 11)}`, items.flatMap((p) => p.item.signature ?? []));
      noteLocalCommit();
      return items.forEach((p) => p.resolve());
    }
    const { kept, refused } = await this.db.withClient(async (client) => {
      try {
        // BEGIN goes with the lock, the head and the fences' counts: the lock is held for the insert and the commit only.
        const { head, also } = await lockedHead(client, 'BEGIN; ', fenceCounts(client, fenced));
        const counts = this.countsOf(fenced, also);
        const kept: Pending<DurableWrite>[] = [];
        const refused: Pending<DurableWrite>[] = [];
        for (const p of items) (p.item.fence && fenceBroken(p.item.fence, counts.get(p.item.fence.vaultId)!.frozen) ? refused : kept).push(p);
        const insert = batchInsert(kept, head);
        if (insert !== null) await client.query(insert.text, insert.values);
        await client.query('COMMIT');
        return { kept, refused };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
    noteLocalCommit();
    kept.forEach((p) => p.resolve());
    refused.forEach((p) => p.reject(vaultFrozen(p.item.fence!.vaultId)));
  };

  /**
   * The freeze counts of `vaults` from fenceCounts' rows (a vault without a row has none), remembered for
   * the next signs' first check: as current as a read, so a freeze found here is known to them at once.
   */
  private countsOf(vaults: readonly string[], also: pg.QueryResult<FreezeRow> | undefined): Map<string, FreezeCount> {
    const counts = new Map(vaults.map((v) => [v, freezeCountOf(undefined)]));
    for (const row of also?.rows ?? []) counts.set(row.vault_id, freezeCountOf(row));
    counts.forEach((count, vaultId) => this.guardedReads.learn(freezesKey(vaultId), count));
    return counts;
  }
}

/** The statement (led by `; `, for lockedHead) counting the freezes of `vaults`, or '' for none. */
function fenceCounts(client: pg.ClientBase, vaults: readonly string[]): string {
  if (vaults.length === 0) return '';
  return `; SELECT vault_id, ${FREEZE_COLUMNS} FROM vault_freezes WHERE vault_id IN (${vaults.map((v) => client.escapeLiteral(v)).join(', ')}) GROUP BY vault_id`;
}

/**
 * The one statement writing `items` after `head`: their signature rows and chained audit records (a CTE:
 * data-modifying CTEs always run to completion), either alone, or null when there is nothing to write.
 */
function batchInsert(items: Pending<DurableWrite>[], head: ChainHead | null): { text: string; values: unknown[] } | null {
  const rows = items.flatMap((p) => (p.item.signature ? [p.item.signature] : []));
  const events = items.flatMap((p) => (p.item.event ? [p.item.event] : []));
  const values = rows.flat();
  const signatures = `INSERT INTO signatures (${SIGNATURES.columns}) VALUES ${rowPlaceholders(rows.length, 11)}`;
  if (events.length === 0) return rows.length === 0 ? null : { text: signatures, values };
  const audit = auditInsert(appendChained(head, events), values.length + 1);
  return { text: rows.length === 0 ? audit.text : `WITH signed AS (${signatures}) ${audit.text}`, values: [...values, ...audit.values] };
}

/** `value`, once a write through the pool committed it: counted (local-commits.ts). */
function committed<T>(value: T): T {
  noteLocalCommit();
  return value;
}

/**
 * Takes the audit head lock and reads the head under it, in one round trip (a simple query of several
 * statements), after `begin` when given: the lock is then held until the transaction ends. `then` (one
 * more statement, led by `; `) runs under the lock too, in the same round trip; its rows are `also`.
 */
async function lockedHead(client: pg.ClientBase, begin = '', then = ''): Promise<{ head: ChainHead | null; also: pg.QueryResult<FreezeRow> | undefined }> {
  const results = (await client.query(
    `${begin}SELECT pg_advisory_xact_lock(${AUDIT_HEAD_LOCK}); SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1${then}`,
  )) as unknown as pg.QueryResult[];
  const row = results[begin === '' ? 1 : 2]!.rows[0] as { seq: string; hash: string } | undefined;
  return { head: row ? { seq: Number(row.seq), hash: row.hash } : null, also: then === '' ? undefined : (results.at(-1) as pg.QueryResult<FreezeRow>) };
}

/** A row of the fences' count: a vault's FREEZE_COLUMNS. */
type FreezeRow = { vault_id: string; frozen: number | string; lifted: number | string };

/** The multi-row INSERT of chained records, its placeholders numbered from `firstParam` (after the signatures'). */
function auditInsert(records: readonly ChainedEvent[], firstParam: number): { text: string; values: unknown[] } {
  return {
    text: `INSERT INTO audit_log (${AUDIT.columns}) VALUES ${rowPlaceholders(records.length, 9, firstParam)}`,
    // The instant as hashed (ISO 8601, UTC, milliseconds); the details as hashed (jsonb keeps its own key order).
    values: records.flatMap((r) => [r.seq, r.atIso, r.actor, r.vaultId, r.subject, r.action, r.detailsJson, r.prevHash, r.hash]),
  };
}

/** The pool's one SQL seam (one group commit). */
export const postgresSql: (db: PostgresDatabase) => PostgresSql = seamPerDatabase((db) => new PostgresSql(db));
