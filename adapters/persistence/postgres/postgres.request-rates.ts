import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { RequestRateStore } from '../../../src/ports/request-rate-store.port.js';
import { flexibleCounter, windowOptions } from '../../rate-limit/flexible-counter.js';
import type { PostgresDatabase } from './postgres.database.js';

/** The table migration 8 creates, in the shape RateLimiterPostgres writes (key, points, expire). */
export const REQUEST_RATES_TABLE = 'request_rates';

/**
 * Request counts in the vault's own database: one row per API key, upserted by each request (one
 * statement, the row's lock orders the instances' counts). Statements go through the database's bounds
 * (pool wait, statement timeout), so a database that does not answer fails the count rather than hanging it.
 */
export function postgresRequestRates(db: PostgresDatabase): RequestRateStore {
  // What RateLimiterPostgres calls: `query({ name, text, values })` on a client it never releases. Its
  // statements are named (`request_rates:rlflx-upsert`): prepared once per connection.
  const client = { query: (q: { name?: string; text: string; values?: unknown[] }) => db.query(q.text, q.values, q.name) };
  return {
    counter: (limit) =>
      flexibleCounter(
        new RateLimiterPostgres({
          storeClient: client,
          storeType: 'client',
          tableName: REQUEST_RATES_TABLE,
          // The schema option's (the pool's search_path finds it too; named, the statements need no lookup).
          schemaName: db.config.schema,
          // Created by the migrations, in the vault's schema, so the library creates nothing itself.
          tableCreated: true,
          ...windowOptions(limit, 'api-key'),
        }),
      ),
  };
}
