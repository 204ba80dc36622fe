import type { Statement } from 'better-sqlite3';
import type { WalletPage } from '../../../src/ports/wallet-repository.port.js';
import { fromMillis, WALLETS } from '../sql/rows.js';
import type { WalletPages } from '../sql/sql-database.js';
import type { SqliteDatabase } from './sqlite.database.js';

/** The connection, and how SqliteSql runs synchronous statements (after any open transaction). */
interface Connection {
  readonly db: SqliteDatabase;
  sync<T>(work: () => T): Promise<T>;
}

const VISIBLE = '(expires IS NULL OR expires > @now)';
const ANCHOR_EVERY = 1000;
const ANCHOR_CACHE_VAULTS = 100;

interface AnchorIndex {
  readonly generation: number;
  /** The next expiry instant in the vault: from then on positions shift without any write. */
  readonly validUntil: number;
  /** (created, id) of the visible wallets at positions ANCHOR_EVERY, 2·ANCHOR_EVERY, ... */
  readonly keys: readonly { created: number; id: string }[];
}

/**
 * Pages of wallets on SQLite. The total comes from `wallet_counts` (kept by triggers) less the expired
 * rows (a partial index), and a page is read in the same read transaction. SQLite walks every skipped
 * index entry of an OFFSET, ~12 ms at 100 000. So the (created, id) key of every ANCHOR_EVERY-th visible
 * wallet is kept per vault, and a deep page seeks to the nearest anchor and walks at most ANCHOR_EVERY
 * entries. Anchors are valid while the vault's generation (moved by triggers on every insert, delete and
 * expiry change) is the same and no expiry instant has passed.
 */
export class SqliteWalletPages implements WalletPages {
  private readonly s: Record<'page' | 'pageFrom' | 'keys' | 'nextExpiry' | 'generation' | 'rows' | 'expired', Statement>;
  private readonly anchors = new Map<string, AnchorIndex>();

  constructor(private readonly sql: Connection) {
    const p = (text: string) => sql.db.prepare(text);
    this.s = {
      // The offset is walked in the covering index alone (rowids only); just the page's rows are read.
      page: p(`${WALLETS.select} WHERE rowid IN (
        SELECT rowid FROM wallets WHERE vault_id = @vaultId AND ${VISIBLE} ORDER BY created, id LIMIT @limit OFFSET @offset
      ) ORDER BY created, id`),
      pageFrom: p(`${WALLETS.select} WHERE rowid IN (
        SELECT rowid FROM wallets WHERE vault_id = @vaultId AND ${VISIBLE} AND (created, id) >= (@created, @id)
        ORDER BY created, id LIMIT @limit OFFSET @offset
      ) ORDER BY created, id`),
      keys: p(`SELECT created, id FROM wallets WHERE vault_id = @vaultId AND ${VISIBLE} ORDER BY created, id`),
      nextExpiry: p('SELECT min(expires) AS at FROM wallets WHERE vault_id = @vaultId AND expires > @now'),
      generation: p('SELECT generation FROM wallet_counts WHERE vault_id = ?'),
      rows: p('SELECT rows FROM wallet_counts WHERE vault_id = ?'),
      expired: p('SELECT count(*) AS n FROM wallets WHERE vault_id = @vaultId AND expires IS NOT NULL AND expires <= @now'),
    };
  }

  list(vaultId: string, now: Date, offset: number, limit: number): Promise<WalletPage> {
    // One read transaction, so the page and the total agree even while others write.
    return this.sql.sync(() =>
      this.sql.db.transaction(() => {
        const at = now.getTime();
        const anchor = offset >= ANCHOR_EVERY ? this.anchorFor(vaultId, at, offset) : undefined;
        const rows = (
          anchor
            ? this.s.pageFrom.all({ vaultId, now: at, created: anchor.created, id: anchor.id, offset: offset - anchor.position, limit })
            : this.s.page.all({ vaultId, now: at, offset, limit })
        ) as object[];
        return { count: this.countNow(vaultId, at), page: rows.map((r) => WALLETS.read(r, fromMillis)) };
      })(),
    );
  }

  count(vaultId: string, now: Date): Promise<number> {
    return this.sql.sync(() => this.countNow(vaultId, now.getTime()));
  }

  private countNow(vaultId: string, now: number): number {
    const rows = (this.s.rows.get(vaultId) as { rows: number } | undefined)?.rows ?? 0;
    return rows - (this.s.expired.get({ vaultId, now }) as { n: number }).n;
  }

  private anchorFor(vaultId: string, now: number, offset: number): { created: number; id: string; position: number } | undefined {
    const generation = (this.s.generation.get(vaultId) as { generation: number } | undefined)?.generation ?? 0;
    let entry = this.anchors.get(vaultId);
    if (!entry || entry.generation !== generation || now >= entry.validUntil) {
      const keys: { created: number; id: string }[] = [];
      let position = 0;
      for (const row of this.s.keys.iterate({ vaultId, now }) as Iterable<{ created: number; id: string }>) {
        if (position > 0 && position % ANCHOR_EVERY === 0) keys.push(row);
        position++;
      }
      const next = (this.s.nextExpiry.get({ vaultId, now }) as { at: number | null }).at;
      entry = { generation, validUntil: next ?? Number.POSITIVE_INFINITY, keys };
      this.anchors.delete(vaultId);
      if (this.anchors.size >= ANCHOR_CACHE_VAULTS) this.anchors.delete(this.anchors.keys().next().value as string);
      this.anchors.set(vaultId, entry);
    }
    const index = Math.min(Math.floor(offset / ANCHOR_EVERY) - 1, entry.keys.length - 1);
    const key = entry.keys[index];
    return key ? { ...key, position: (index + 1) * ANCHOR_EVERY } : undefined;
  }
}
