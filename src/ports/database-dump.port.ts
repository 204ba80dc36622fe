/**
 * A logical copy of every table the application keeps, in a form any dialect reads back: what a backup
 * carries (`wallet-vault backup create`), and what a restore writes into an empty database of either
 * dialect (a SQLite backup restored into PostgreSQL included). Values are portable: an instant is its
 * milliseconds since the epoch, an integer a number, a big decimal and text a string; null is null.
 * Tables a dialect derives from others (SQLite's wallet counts, kept by triggers) or counts that expire
 * within minutes (PostgreSQL's request rates) are not in it: the restore's database rebuilds them.
 */
export type DumpValue = string | number | null;

export interface DumpedTable {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly DumpValue[])[];
}

export type DumpedTables = Readonly<Record<string, DumpedTable>>;

export interface DatabaseDump {
  /** `sqlite` or `postgres`: which dialect wrote a dump (a restore may read it into the other). */
  readonly dialect: string;
  /** Every table, read from one snapshot (one transaction), so the copy is consistent across tables. */
  export(): Promise<DumpedTables>;
  /**
   * Names the tables that hold rows a restore would collide with (the deployment row the migration
   * wrote is not one: a restore replaces it); empty when the database is empty.
   */
  occupied(): Promise<string[]>;
  /**
   * Writes `tables` into this database, in one transaction: all or nothing. Refuses (throws) a table or
   * column this build does not have (a backup of a newer build) before writing anything.
   */
  import(tables: DumpedTables): Promise<{ readonly tables: number; readonly rows: number }>;
}
