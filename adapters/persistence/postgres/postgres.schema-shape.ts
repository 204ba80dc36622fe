import type { Migration } from '../sql/migration-history.js';
import { foldSpace, type SchemaShape } from '../sql/schema-shape.js';

/** What reading the catalogue needs: one query at a time, on the pool or the migration's own connection. */
export interface CatalogueReader {
  query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/** Tables of the schema that are bookkeeping (the vault's migrations table, a previous release's): not compared. */
const BOOKKEEPING = ['wallet_vault_migrations', 'schema_migrations'];

/**
 * The tables' columns (type as format_type writes it, a collation other than the type's, NOT NULL, the
 * default as deparsed), the indexes (pg_indexes' definition) and the triggers of `schema`, from the
 * catalogue: three queries one after the other (a migration's connection runs one at a time), no table data. Definitions lose the schema's name, so the shape of a vault in
 * schema "vault" compares with one in "public".
 */
export async function readPostgresShape(db: CatalogueReader, schema: string): Promise<SchemaShape> {
  const columns = await db.query<{ tbl: string; name: string; type: string; notnull: boolean; dflt: string | null; collation: string | null }>(
      `SELECT c.relname AS tbl, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
              pg_get_expr(d.adbin, d.adrelid) AS dflt, CASE WHEN a.attcollation <> t.typcollation THEN co.collname END AS collation
         FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         JOIN pg_type t ON t.oid = a.atttypid
         LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
         LEFT JOIN pg_collation co ON co.oid = a.attcollation
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND c.relname <> ALL ($2)
        ORDER BY c.relname, a.attnum`,
    [schema, BOOKKEEPING],
  );
  const indexes = await db.query<{ name: string; definition: string }>('SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = $1 AND tablename <> ALL ($2)', [
      schema,
    BOOKKEEPING,
  ]);
  const triggers = await db.query<{ name: string; definition: string }>(
    `SELECT t.tgname AS name, pg_get_triggerdef(t.oid) AS definition
         FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND NOT t.tgisinternal`,
    [schema],
  );
  const unqualified = withoutSchema(schema);
  const tables: Record<string, Record<string, string>> = {};
  for (const c of columns.rows) {
    (tables[c.tbl] ??= {})[c.name] =
      `${c.type}${c.collation === null ? '' : ` COLLATE "${c.collation}"`}${c.notnull ? ' NOT NULL' : ''}${c.dflt === null ? '' : ` DEFAULT ${unqualified(c.dflt)}`}`;
  }
  const byName = (rows: { name: string; definition: string }[]) => Object.fromEntries(rows.map((r) => [r.name, foldSpace(unqualified(r.definition))]));
  return { tables, indexes: byName(indexes.rows), triggers: byName(triggers.rows) };
}

/** `text` without the qualification by `schema` (`vault.audit_log`, `"My Schema".audit_log` → `audit_log`). */
function withoutSchema(schema: string): (text: string) => string {
  const escaped = schema.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const qualified = new RegExp(`(?:"${escaped.replace(/"/g, '""')}"|\\b${escaped}\\b)\\.`, 'g');
  return (text) => text.replace(qualified, '');
}

/**
 * The shape `list` makes when run on `db`, in its current schema (which must be empty): the schema a
 * build of that list expects (scripts/freeze-migrations.mjs).
 */
export async function postgresShapeOf(db: CatalogueReader, list: readonly Migration[]): Promise<SchemaShape> {
  for (const m of list) await db.query(m.sql);
  const { rows } = await db.query<{ schema: string }>('SELECT current_schema() AS schema');
  return readPostgresShape(db, rows[0]!.schema);
}
