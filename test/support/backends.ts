import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import express from 'express';
import { Redis } from 'ioredis';
import { describe, it } from 'vitest';
// The public entry points, from source (the tsconfig paths of `wallet-vault`, `wallet-vault/express`, …):
// an application's composition, with the same classes (DomainError, the use cases) as the code under test.
// test/lib/embedded-router.test.ts imports the same entries by package name, from dist/.
import { createVault, type Vault } from '../../lib/index.js';
import { vaultRouter } from '../../lib/express.js';
import { localFileKeyStore } from '../../lib/keystores/local-file.js';
import { postgresPersistence } from '../../lib/persistence/postgres.js';
import { sqlitePersistence } from '../../lib/persistence/sqlite.js';
import { client } from './http-client.js';
import { MovableClock } from './movable-clock.js';
import { registerMountPath } from './openapi-conformance.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from './postgres.js';
import { startTestServer, vaultsAndKeysOf, type VaultsAndKeys } from './test-server.js';

/**
 * One suite over every backend, as kysely runs every test over every dialect: the HTTP interface's
 * suites run once per target, {SQLite, PostgreSQL} × {the standalone server, vaultRouter mounted in an
 * Express app of its own}, through the same handle. A test that holds on one shell or one database only
 * says so (`itOn`), with the reason.
 */
export type DatabaseKind = 'sqlite' | 'postgres';
export type ShellKind = 'standalone' | 'mounted';

/** Where the mounted router sits in its host app: two segments, as deep as an application might put it. */
export const MOUNT_PATH = '/host/vault';
// Its answers are held to the OpenAPI document too (the setup file checks every answer a test fetches).
registerMountPath(MOUNT_PATH);
/** PostgreSQL pools small enough for several files at once on a server with 100 connections. */
const POOL_SIZE = 4;

/** What a suite may ask of its target: the same on every shell. */
export interface TargetOptions {
  /** The `X-Vault-Auth-Signature` secret (VAULT_AUTH_SECRET_KEY; createVault's `authSecret`). */
  readonly authSecret?: string;
  /** How often refused authentications go to the audit trail (ms); the default is a minute. */
  readonly authRefusedSummaryMs?: number;
  /** Peers whose X-Forwarded-For is believed (VAULT_TRUSTED_PROXIES; vaultRouter's `trustedProxies`). */
  readonly trustedProxies?: readonly string[];
  /** Requests per minute per API key (VAULT_RATE_LIMIT_PER_MINUTE; vaultRouter's `rateLimitPerMinute`). */
  readonly rateLimitPerMinute?: number;
  /**
   * The per-key limit counted in this Redis (VAULT_REDIS_URL; vaultRouter's `rateLimitStore: { redis }`
   * with a client of the shell's own, under `keyPrefix`: the standalone server's is its default).
   */
  readonly rateLimitRedis?: { readonly url: string; readonly keyPrefix: string };
  /** VAULT_RATE_LIMIT_STORE_TIMEOUT_MS; vaultRouter's `rateLimitStoreTimeoutMs`. */
  readonly rateLimitStoreTimeoutMs?: number;
  /** VAULT_PUBLIC_URL (createVault's `publicUrl`): the approvers' console's origin and relying party. */
  readonly publicUrl?: string;
  /** VAULT_CONSOLE_CHALLENGES_PER_CLIENT and VAULT_CONSOLE_CHALLENGES (createVault's `consoleChallenges`). */
  readonly consoleChallenges?: { readonly perClient: number; readonly outstanding: number };
}

/** A fresh vault of a target, one API key for it and a client that sends it. */
export interface VaultWithKey {
  readonly vaultId: string;
  readonly apiKey: string;
  readonly keyId: string;
  readonly api: ReturnType<typeof client>;
  /** `/api/v1/vaults/<id>` */
  readonly base: string;
}

/** A running target: the vault's HTTP interface on a port, over its own data. */
export interface Target extends VaultsAndKeys {
  /** Where the interface answers: `http://127.0.0.1:<port>`, plus the mount path on a mounted router. */
  readonly url: string;
  readonly clock: MovableClock;
  /** The vault behind the interface (the use cases, `container` for ports and TOKENS). */
  readonly vault: Vault;
  /** Holds `keys/` (the local key store) and, on SQLite, `vault.db`: what `VAULT_DATA_DIR` names for the CLI. */
  readonly dataDir: string;
  readonly keysDir: string;
  /** The target's PostgreSQL database (its own, dropped by close()); undefined on SQLite. */
  readonly database: { readonly url: string; readonly name: string } | undefined;
  vaultWithKey(name: string, account?: string): Promise<VaultWithKey>;
  /** One run of the expiry purge, idempotency clean-up and orphan sweep, now. */
  purgeNow(): Promise<void>;
  /**
   * A second instance of the same shell on the same database (PostgreSQL only); close() closes it too.
   * `shareKeys`: on this target's data directory, so it signs with the same local key files (as instances
   * over one shared key store do); else on its own.
   */
  peer(o?: { shareKeys?: boolean }): Promise<Target>;
  /** Stops serving and closes the vault (writing what it flushes at close); the data stays for a look. */
  stop(): Promise<void>;
  /** stop(), then removes the data directory and drops the database. Idempotent. */
  close(): Promise<void>;
}

export interface Backend {
  /** `SQLite, standalone server`, …: in every test's name. */
  readonly name: string;
  readonly database: DatabaseKind;
  readonly shell: ShellKind;
  /** PostgreSQL targets need the machine's server (test/support/postgres.ts warns when it is missing). */
  readonly available: boolean;
  start(options?: TargetOptions): Promise<Target>;
}

/** How a shell serves a vault over a given database and data directory. */
interface Served {
  readonly url: string;
  readonly vault: Vault;
  purgeNow(): Promise<void>;
  stop(): Promise<void>;
}
type Serve = (o: { dataDir: string; databaseUrl: string | undefined; clock: MovableClock; options: TargetOptions }) => Promise<Served>;

/** The standalone server as an operator runs it (`startServer` over the environment it reads). */
const standalone: Serve = async ({ dataDir, databaseUrl, clock, options }) => {
  const env: Record<string, string> = {};
  if (databaseUrl) Object.assign(env, { VAULT_DATABASE_URL: databaseUrl, VAULT_DATABASE_POOL_SIZE: String(POOL_SIZE) });
  if (options.authSecret) env.VAULT_AUTH_SECRET_KEY = options.authSecret;
  if (options.authRefusedSummaryMs) env.VAULT_AUTH_REFUSED_SUMMARY_SECONDS = String(options.authRefusedSummaryMs / 1000);
  if (options.trustedProxies) env.VAULT_TRUSTED_PROXIES = options.trustedProxies.join(',');
  if (options.rateLimitPerMinute) env.VAULT_RATE_LIMIT_PER_MINUTE = String(options.rateLimitPerMinute);
  if (options.rateLimitRedis) env.VAULT_REDIS_URL = options.rateLimitRedis.url;
  if (options.rateLimitStoreTimeoutMs) env.VAULT_RATE_LIMIT_STORE_TIMEOUT_MS = String(options.rateLimitStoreTimeoutMs);
  if (options.publicUrl) env.VAULT_PUBLIC_URL = options.publicUrl;
  if (options.consoleChallenges) {
    env.VAULT_CONSOLE_CHALLENGES_PER_CLIENT = String(options.consoleChallenges.perClient);
    env.VAULT_CONSOLE_CHALLENGES = String(options.consoleChallenges.outstanding);
  }
  const s = await startTestServer({ env, dataDir, clock });
  return { url: s.url, vault: s.server.vault, purgeNow: () => s.server.purgeNow(), stop: () => s.stop({ keepData: true }) };
};

/** An application's composition: createVault over the persistence factories, vaultRouter under MOUNT_PATH. */
const mounted: Serve = async ({ dataDir, databaseUrl, clock, options }) => {
  const persistence = databaseUrl
    ? await postgresPersistence({ connectionString: databaseUrl, poolSize: POOL_SIZE })
    : await sqlitePersistence({ path: path.join(dataDir, 'vault.db') });
  const vault = await createVault({
    persistence,
    keyStores: [localFileKeyStore({ keysDir: path.join(dataDir, 'keys'), masterKeyHex: masterKeyOf(dataDir) })],
    version: 'test',
    clock,
    // The tests run the jobs when they mean to (purgeNow); the standalone server also runs them at start.
    jobs: false,
    authSecret: options.authSecret,
    authRefusedSummaryIntervalMs: options.authRefusedSummaryMs,
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(options.consoleChallenges ? { consoleChallenges: options.consoleChallenges } : {}),
  });
  const redis = options.rateLimitRedis && new Redis(options.rateLimitRedis.url, { enableOfflineQueue: false, lazyConnect: true });
  await redis?.connect();
  const app = express();
  app.use(
    MOUNT_PATH,
    vaultRouter(vault, {
      health: true,
      ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
      ...(options.rateLimitPerMinute ? { rateLimitPerMinute: options.rateLimitPerMinute } : {}),
      ...(options.rateLimitStoreTimeoutMs ? { rateLimitStoreTimeoutMs: options.rateLimitStoreTimeoutMs } : {}),
      ...(redis ? { rateLimitStore: { redis, keyPrefix: options.rateLimitRedis!.keyPrefix } } : {}),
    }),
  );
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${MOUNT_PATH}`,
    vault,
    purgeNow: () => vault.runJobsOnce(),
    stop: async () => {
      await new Promise((resolve) => server.close(resolve));
      await vault.close();
      await redis?.quit();
    },
  };
};

const SHELLS: Record<ShellKind, { label: string; serve: Serve }> = {
  standalone: { label: 'standalone server', serve: standalone },
  mounted: { label: `vaultRouter at ${MOUNT_PATH}`, serve: mounted },
};

/** The mounted shell's master key per data directory: a peer sharing the directory reads its key files. */
const MASTER_KEYS = new Map<string, string>();
const masterKeyOf = (dataDir: string): string => {
  if (!MASTER_KEYS.has(dataDir)) MASTER_KEYS.set(dataDir, randomBytes(32).toString('hex'));
  return MASTER_KEYS.get(dataDir)!;
};

/**
 * `shared`: a peer's, on the database of the target it was made from (not dropped by the peer);
 * `sharedDataDir`: a peer's on that target's data directory too (left to the target to remove).
 */
async function startTarget(shell: ShellKind, database: DatabaseKind, options: TargetOptions, shared?: TestDatabase, sharedDataDir?: string): Promise<Target> {
  const dataDir = sharedDataDir ?? (await mkdtemp(path.join(tmpdir(), 'wallet-vault-target-')));
  let own: TestDatabase | undefined;
  const removeData = async () => {
    if (sharedDataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    await own?.drop();
  };
  let served: Served;
  const clock = new MovableClock();
  try {
    if (database === 'postgres' && !shared) own = await createTestDatabase();
    served = await SHELLS[shell].serve({ dataDir, databaseUrl: (shared ?? own)?.url, clock, options });
  } catch (error) {
    await removeData();
    throw error;
  }
  const db = shared ?? own;
  // A harness that quietly ran SQLite twice would pass every PostgreSQL test: the vault names its database.
  if (!served.vault.database.startsWith(database === 'postgres' ? 'PostgreSQL' : 'SQLite')) {
    await served.stop();
    await removeData();
    throw new Error(`a ${database} target opened ${served.vault.database}`);
  }
  const peers: Target[] = [];
  let stopped: Promise<void> | undefined;
  let closed: Promise<void> | undefined;
  const stop = () => (stopped ??= served.stop());
  const target: Target = {
    url: served.url,
    clock,
    vault: served.vault,
    dataDir,
    keysDir: path.join(dataDir, 'keys'),
    database: db && { url: db.url, name: db.name },
    ...vaultsAndKeysOf(served.vault),
    vaultWithKey: async (name, account) => {
      const vaultId = (await target.createVault({ name, account })).id;
      const { apiKey, id: keyId } = await target.createApiKey(vaultId);
      return { vaultId, apiKey, keyId, api: client(served.url, apiKey), base: `/api/v1/vaults/${vaultId}` };
    },
    purgeNow: () => served.purgeNow(),
    peer: async (o) => {
      if (!db) throw new Error('peer(): a second instance shares a PostgreSQL database; SQLite is one process per file');
      const peer = await startTarget(shell, database, options, db, o?.shareKeys ? dataDir : undefined);
      peers.push(peer);
      return peer;
    },
    stop,
    close: () =>
      (closed ??= (async () => {
        try {
          for (const peer of peers) await peer.close();
          await stop();
        } finally {
          await removeData();
        }
      })()),
  };
  return target;
}

const backend = (database: DatabaseKind, shell: ShellKind): Backend => ({
  name: `${database === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${SHELLS[shell].label}`,
  database,
  shell,
  available: database === 'sqlite' || POSTGRES_AVAILABLE,
  start: (options = {}) => startTarget(shell, database, options),
});

/** Every target, in the order the suites run them. */
export const BACKENDS: readonly Backend[] = [
  backend('sqlite', 'standalone'),
  backend('sqlite', 'mounted'),
  backend('postgres', 'standalone'),
  backend('postgres', 'mounted'),
];

/** Some of the targets: one database, one shell. */
export interface Where {
  readonly database?: DatabaseKind;
  readonly shell?: ShellKind;
}
const within = (backend: Backend, where: Where) =>
  (where.database ?? backend.database) === backend.database && (where.shell ?? backend.shell) === backend.shell;

/**
 * `describe(title)` once per backend (or per backend `where` names: a file about one database), its
 * name in the title; on a PostgreSQL backend without a server the block is skipped (test/support/postgres.ts
 * says so on the console).
 */
export function describeEachBackend(title: string, body: (backend: Backend) => void, where: Where = {}): void {
  for (const b of BACKENDS.filter((b) => within(b, where))) describe.skipIf(!b.available)(`${title} (${b.name})`, () => body(b));
}

/**
 * `it` for a test that holds on some targets only: on the others it is listed as skipped, its name
 * saying where it runs and why, never dropped without a word.
 */
export function itOn(backend: Backend, where: Where, reason: string) {
  const applies = within(backend, where);
  const scope = [where.database, where.shell].filter(Boolean).join(' ');
  return (name: string, fn: () => Promise<void>, timeout?: number): void => {
    if (applies) it(name, fn, timeout);
    else it.skip(`${name} [${scope} only: ${reason}]`, fn);
  };
}
