import type { DatabaseDump, DumpedTable, DumpedTables, DumpValue } from '../../../src/ports/database-dump.port.js';
import type { SchemaShape } from './schema-shape.js';
import type { SqlDatabase, SqlSession } from './sql-database.js';

/** What a dialect tells the dump of itself: its tables, the ones it derives, how it reads one snapshot. */
export interface DumpDialect {
  readonly name: string;
  /** The schema this build's migrations make (the expected-schema file): the tables and their columns. */
  readonly schema: SchemaShape;
  /** Tables the dialect rebuilds on its own or that hold counts of minutes: not copied, not refused. */
  readonly derived: readonly string[];
  /** Run first in the export's transaction, so every table is read from one snapshot (PostgreSQL). */
  readonly snapshot?: string;
  /** The portable form of a column's value as the driver returned it. */
  exportValue(type: string, value: unknown): DumpValue;
  /** The parameter for a portable value, for a column of `type`. */
  importValue(type: string, value: DumpValue): unknown;
}

/**
 * Tables whose rows others reference, inserted first (the foreign keys of the migrations: vaults name
 * their account, most rows their vault, a pin its policy, a vote its approval); the rest follow by name.
 */
const FIRST = ['accounts', 'vaults', 'sign_policies', 'approvals'];
/** Written by the migration that makes a database (its deployment id): replaced by the backup's. */
const REPLACED = new Set(['deployment']);
const BATCH_ROWS = 200;

/**
 * The DatabaseDump of a SQL database, written once over the seam: every table of the dialect's schema
 * (less the derived ones), each column by name, read in one transaction.
 */
export class SqlDatabaseDump implements DatabaseDump {
  readonly dialect: string;

  constructor(
    private readonly db: SqlDatabase,
    private readonly d: DumpDialect,
  ) {
    this.dialect = d.name;
  }

  private tables(): string[] {
    const names = Object.keys(this.d.schema.tables).filter((t) => !this.d.derived.includes(t));
    return [...FIRST.filter((t) => names.includes(t)), ...names.filter((t) => !FIRST.includes(t)).sort()];
  }

  export(): Promise<DumpedTables> {
    return this.db.transaction(async (tx) => {
      if (this.d.snapshot) await tx.run(this.d.snapshot);
      const out: Record<string, DumpedTable> = {};
      for (const table of this.tables()) {
        const types = this.d.schema.tables[table]!;
        const columns = Object.keys(types);
        const rows = await tx.all<Record<string, unknown>>(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)}`);
        out[table] = { columns, rows: rows.map((row) => columns.map((c) => this.d.exportValue(types[c]!, row[c]))) };
      }
      return out;
    });
  }

  async occupied(): Promise<string[]> {
    const found: string[] = [];
    for (const table of this.tables()) {
      if (REPLACED.has(table)) continue;
      const rows = await this.db.all(`SELECT 1 FROM ${quote(table)} LIMIT 1`);
      if (rows.length > 0) found.push(table);
    }
    return found;
  }

  async import(tables: DumpedTables): Promise<{ tables: number; rows: number }> {
    const known = this.tables();
    for (const [table, dumped] of Object.entries(tables)) {
      const types = this.d.schema.tables[table];
      // A table another dialect derives is rebuilt here by this one (or never kept): skipped, not refused.
      if (types === undefined && DERIVED_ANYWHERE.has(table)) continue;
      if (types === undefined || !known.includes(table)) throw new Error(`the backup has a table this build does not know (${table}): restore it with the build that wrote it, or a newer one`);
      for (const column of dumped.columns) {
        if (types[column] === undefined) throw new Error(`the backup has a column this build does not know (${table}.${column}): restore it with the build that wrote it, or a newer one`);
      }
    }
    return this.db.transaction(async (tx) => {
      let rows = 0;
      let count = 0;
      for (const table of known) {
        const dumped = tables[table];
        if (dumped === undefined) continue;
        count++;
        if (REPLACED.has(table) && dumped.rows.length > 0) await tx.run(`DELETE FROM ${quote(table)}`);
        rows += await this.insert(tx, table, dumped);
      }
      return { tables: count, rows };
    });
  }

  private async insert(tx: SqlSession, table: string, dumped: DumpedTable): Promise<number> {
    const types = this.d.schema.tables[table]!;
    const columns = dumped.columns;
    for (let at = 0; at < dumped.rows.length; at += BATCH_ROWS) {
      const batch = dumped.rows.slice(at, at + BATCH_ROWS);
      const params: unknown[] = [];
      const tuples = batch.map((row) => {
        if (row.length !== columns.length) throw new Error(`the backup's table ${table} has a row of ${row.length} values for ${columns.length} columns`);
        return `(${row.map((value, i) => (params.push(this.d.importValue(types[columns[i]!]!, value)), `$${params.length}`)).join(', ')})`;
      });
      await tx.run(`INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES ${tuples.join(', ')}`, params);
    }
    return dumped.rows.length;
  }
}

/** Tables one dialect or the other derives (see the dialects' `derived`): a backup of the other may name them. */
const DERIVED_ANYWHERE = new Set(['wallet_counts', 'request_rates']);

/** Identifiers come from the schema file, never from the backup unchecked; quoted all the same. */
function quote(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not an identifier: ${name}`);
  return `"${name}"`;
}
