import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

/** A statement run on the server's database: `?` placeholders on both dialects; resolves to the rows changed. */
export interface SqlSession {
  run(text: string, values: unknown[]): Promise<number>;
  close(): Promise<void>;
}

/**
 * Plain SQL on the server's database from a connection of its own, as an operator, a restore or anyone
 * holding the database's credentials: SQLite's `vault.db` in `dataDir`, or PostgreSQL at `url`.
 */
export async function sqlSessionOn(dataDir: string, url: string | undefined): Promise<SqlSession> {
  if (!url) {
    const file = new Database(path.join(dataDir, 'vault.db'));
    return { run: async (text: string, values: unknown[]) => file.prepare(text).run(...values).changes, close: async () => void file.close() };
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const numbered = (text: string) => text.replace(/\?/g, ((n) => () => `$${++n}`)(0));
  return { run: async (text: string, values: unknown[]) => (await c.query(numbered(text), values)).rowCount ?? 0, close: () => c.end() };
}
