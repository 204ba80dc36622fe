import Database from 'better-sqlite3';
import type { Migration } from '../sql/migration-history.js';
import { foldSpace, type SchemaShape } from '../sql/schema-shape.js';

/** Where the applied migrations are recorded (name and checksum): bookkeeping, not part of the schema compared. */
export const MIGRATIONS_TABLE = 'wallet_vault_migrations';

/**
 * The tables' columns (pragma table_xinfo), and the indexes and triggers as written (sqlite_master), in
 * two catalogue reads. Indexes SQLite makes for a PRIMARY KEY or UNIQUE constraint (no SQL of their own)
 * are covered by the columns and left out. A table's own SQL is not compared: ALTER TABLE rewrites it,
 * so a column added later reads differently from the same column created with the table.
 */
export function readSqliteShape(db: Database.Database): SchemaShape {
  const columns = db
    .prepare(
      `SELECT m.name AS tbl, p.name, p.type, p."notnull" AS not_null, p.dflt_value AS dflt, p.pk
         FROM sqlite_master m JOIN pragma_table_xinfo(m.name) p
        WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name <> ?
        ORDER BY m.name, p.cid`,
    )
    .all(MIGRATIONS_TABLE) as { tbl: string; name: string; type: string; not_null: number; dflt: string | null; pk: number }[];
  const tables: Record<string, Record<string, string>> = {};
  for (const c of columns) {
    (tables[c.tbl] ??= {})[c.name] = `${c.type}${c.not_null ? ' NOT NULL' : ''}${c.dflt === null ? '' : ` DEFAULT ${c.dflt}`}${c.pk ? ' PRIMARY KEY' : ''}`;
  }
  const objects = db.prepare("SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY name").all() as {
    type: 'index' | 'trigger';
    name: string;
    sql: string;
  }[];
  const indexes: Record<string, string> = {};
  const triggers: Record<string, string> = {};
  for (const o of objects) (o.type === 'index' ? indexes : triggers)[o.name] = foldSpace(o.sql);
  return { tables, indexes, triggers };
}

/** The shape `list` makes on a new in-memory database: the schema a build of that list expects (scripts/freeze-migrations.mjs). */
export function sqliteShapeOf(list: readonly Migration[]): SchemaShape {
  const db = new Database(':memory:');
  try {
    for (const m of list) db.exec(m.sql);
    return readSqliteShape(db);
  } finally {
    db.close();
  }
}
