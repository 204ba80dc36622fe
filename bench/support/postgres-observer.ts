import pg from 'pg';

/** What the database did during a load, per request: from pg_stat_database and pg_stat_activity. */
export interface PostgresObservation {
  readonly commitsPerRequest: number;
  readonly rowsInsertedPerRequest: number;
  /** Share of the sampled wallet-vault backends in each state (`active: Lock/advisory`, `idle`, ...). */
  readonly states: ReadonlyMap<string, number>;
}

/**
 * Watches one database while `load` runs: the commits and inserted rows it counted (pg_stat_database,
 * divided by the requests the load reports) and, sampled every 10 ms, what the service's connections
 * were doing (pg_stat_activity: running a statement, waiting on a lock such as the audit head's advisory
 * lock, waiting for the commit's WAL flush, idle in a transaction between two round trips, or idle in
 * the pool). From the database's side this says where a request's database time goes.
 */
export async function observePostgres<T extends { total: number }>(url: string, load: () => Promise<T>): Promise<{ result: T; observed: PostgresObservation }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const stats = async () =>
      (
        await client.query<{ xact_commit: string; tup_inserted: string }>(
          'SELECT xact_commit, tup_inserted FROM pg_stat_database WHERE datname = current_database()',
        )
      ).rows[0]!;
    await client.query('SELECT pg_stat_clear_snapshot()');
    const before = await stats();
    const states = new Map<string, number>();
    let samples = 0;
    let running = true;
    const sampling = (async () => {
      while (running) {
        const { rows } = await client.query<{ state: string; wait: string | null }>(
          `SELECT state, wait_event_type || '/' || wait_event AS wait FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'wallet-vault'`,
        );
        for (const r of rows) {
          const key = r.wait && r.state === 'active' ? `${r.state}: ${r.wait}` : r.state;
          states.set(key, (states.get(key) ?? 0) + 1);
          samples++;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const result = await load();
    running = false;
    await sampling;
    // pg_stat_database is updated by backends at transaction end, reported with a short delay.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await client.query('SELECT pg_stat_clear_snapshot()');
    const after = await stats();
    const per = (a: string, b: string) => (Number(a) - Number(b)) / Math.max(result.total, 1);
    return {
      result,
      observed: {
        commitsPerRequest: per(after.xact_commit, before.xact_commit),
        rowsInsertedPerRequest: per(after.tup_inserted, before.tup_inserted),
        states: new Map([...states].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, n / Math.max(samples, 1)])),
      },
    };
  } finally {
    await client.end();
  }
}
