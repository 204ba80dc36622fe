import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './cli.js';

/**
 * A PostgreSQL cluster of a test's own: initdb'd into a temporary directory, on a free port, trust auth,
 * listening on 127.0.0.1 only. Tests that restart PostgreSQL or terminate every backend do it here,
 * never on the machine's shared server (every other test and process uses that one).
 * The binaries run as the `postgres` user (initdb refuses root); the directory is owned by it.
 */
const BIN = process.env.VAULT_TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** Whether a private cluster can be made here: the binaries, a `postgres` user, and root to become it. */
export const PRIVATE_POSTGRES_AVAILABLE = existsSync(path.join(BIN, 'initdb')) && existsSync(path.join(BIN, 'pg_ctl')) && process.getuid?.() === 0;

export interface PrivatePostgres {
  readonly port: number;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  /** `pg_ctl restart -m <mode>`: resolves once the server accepts connections again. */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
  /** `pg_ctl stop -m <mode>`: resolves once the server is down. */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  /** `pg_ctl start`: resolves once the server accepts connections. */
  start(): Promise<void>;
  /** pg_terminate_backend of every client backend but the caller's; how many were ended. */
  terminateBackends(): Promise<number>;
  /** Stops the server (immediately) and removes its directory. Idempotent. */
  remove(): Promise<void>;
}

function run(file: string, args: readonly string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('runuser', ['-u', 'postgres', '--', file, ...args], { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(file)} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** initdb + start; remove() it in afterAll (also when the test failed). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wv-private-pg-'));
  const data = path.join(dir, 'data');
  const pgCtl = path.join(BIN, 'pg_ctl');
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    await run(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const { uid, gid } = await postgresUser();
    await chown(dir, uid, gid);
    await run(path.join(BIN, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
    const port = await freePort();
    const log = path.join(dir, 'log');
    // Kept in postmaster.opts: `pg_ctl restart` starts the server with the same options.
    const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=60 -c fsync=on`;
    const start = () => run(pgCtl, ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start']).then(() => undefined);
    await start();
    const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
    return {
      port,
      url,
      // The log file again: without it the new server writes to (and holds open) pg_ctl's output pipe.
      restart: (mode) => run(pgCtl, ['-D', data, '-l', log, '-m', mode, '-w', '-t', '60', 'restart']).then(() => undefined),
      stop: (mode) => run(pgCtl, ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']).then(() => undefined),
      start,
      terminateBackends: async () => {
        const client = new pg.Client({ connectionString: url(), connectionTimeoutMillis: 10_000 });
        client.on('error', () => undefined);
        await client.connect();
        try {
          const { rowCount } = await client.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
          );
          return rowCount ?? 0;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const out = await new Promise<string>((resolve, reject) =>
    execFile('id', ['postgres'], (error, stdout) => (error ? reject(new Error('no `postgres` user on this machine')) : resolve(stdout))),
  );
  const uid = Number(/uid=(\d+)/.exec(out)?.[1]);
  const gid = Number(/gid=(\d+)/.exec(out)?.[1]);
  return { uid, gid };
}
