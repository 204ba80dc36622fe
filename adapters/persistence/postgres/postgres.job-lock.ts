import pg from 'pg';
import type { ExclusiveRun, JobLock } from '../../../src/ports/job-lock.port.js';
import type { PostgresDatabase } from './postgres.database.js';

// The two-key form of advisory locks: its key space does not overlap the one-key form the migrations
// and the audit log use. The first key marks the lock as wallet-vault's job lock.
const JOB_LOCK_NAMESPACE = 0x6a6f62; // "job"

/**
 * A job runs on one instance at a time: a session advisory lock taken with pg_try_advisory_lock on one
 * dedicated connection, held for as long as the work runs and released when it settles. If the
 * instance dies (or its connection does), PostgreSQL ends the session and the lock goes with it, so a
 * crash never leaves a job locked; nothing to expire or clean up.
 *
 * The lock's connection is opened outside the pool (as the migrations' and the key cache listener's
 * are): the work itself queries through the pool, and holding a pooled connection for the lock left it
 * one short, so a pool of one waited on itself until the connect timeout and every request with it.
 */
export class PostgresJobLock implements JobLock {
  constructor(private readonly db: PostgresDatabase) {}

  async runExclusive<T>(job: string, work: () => Promise<T>): Promise<ExclusiveRun<T>> {
    // The work's own outcome is kept apart from the connection's, so its error reaches the caller as is.
    let outcome = { error: new Error('job did not run') } as { value: T } | { error: unknown };
    const ran = await this.onOwnConnection(async (client) => {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [
        JOB_LOCK_NAMESPACE,
        job,
      ]);
      if (!rows[0]?.locked) return false;
      try {
        outcome = { value: await work() };
      } catch (error) {
        outcome = { error };
      }
      // Unlock failing means the session is gone, and the lock with it; the connection is closed anyway.
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [JOB_LOCK_NAMESPACE, job]).catch(() => undefined);
      return true;
    });
    if (!ran) return { ran: false };
    const settled = outcome as { value: T } | { error: unknown };
    if ('error' in settled) throw settled.error;
    return { ran: true, value: settled.value };
  }

  private async onOwnConnection<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const db = this.db;
    const client = new pg.Client({
      ...(db.pool.options as pg.ClientConfig),
      connectionTimeoutMillis: db.config.connectTimeoutMs,
      application_name: 'wallet-vault-job-lock',
    });
    client.on('error', () => undefined); // the pending query reports it
    try {
      await client.connect();
      return await work(client);
    } catch (error) {
      throw db.toError(error);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
