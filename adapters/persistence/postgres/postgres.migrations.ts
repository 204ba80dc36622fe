import pg from 'pg';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import { newerThanBuild, notMigrated, type SchemaMigration } from '../sql/schema-version.js';
import { FOUND_BY_SUBJECT } from '../sql/rows.js';

/**
 * What migrating needs of the database (postgres.database.ts's PostgresDatabase is one): declared here, so
 * the migrations import nothing of the module that runs them and the two do not import each other.
 */
export interface MigrationTarget {
  readonly pool: pg.Pool;
  /** What messages name the database by, never its URL. */
  readonly label: string;
  readonly config: { readonly connectTimeoutMs: number; readonly schema?: string };
}

/**
 * Versioned schema changes, applied in order and recorded in MIGRATIONS_TABLE. Never edit a
 * migration that has shipped: add a new one. Identifiers and keys compare bytewise (COLLATE "C"), as
 * SQLite's do, so list order and `id > afterId` paging agree between the two databases.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE accounts (
     id text COLLATE "C" PRIMARY KEY,
     created timestamptz NOT NULL
   );
   CREATE TABLE vaults (
     id text COLLATE "C" PRIMARY KEY,
     account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
     name text NOT NULL,
     created timestamptz NOT NULL
   );
   CREATE TABLE api_keys (
     id text COLLATE "C" PRIMARY KEY,
     vault_id text COLLATE "C" NOT NULL REFERENCES vaults (id),
     secret_hash text NOT NULL,
     created timestamptz NOT NULL,
     revoked timestamptz
   );
   CREATE INDEX api_keys_by_vault ON api_keys (vault_id, created, id);
   CREATE TABLE wallets (
     id text COLLATE "C" PRIMARY KEY,
     account_id text COLLATE "C" NOT NULL,
     vault_id text COLLATE "C" NOT NULL REFERENCES vaults (id),
     name text NOT NULL,
     address text COLLATE "C" NOT NULL UNIQUE,
     key_store text COLLATE "C" NOT NULL,
     key_ref text COLLATE "C" NOT NULL,
     created timestamptz NOT NULL,
     updated timestamptz NOT NULL,
     expires timestamptz,
     version integer NOT NULL
   );
   -- Covers list and count: a page or a total is read from the index alone.
   CREATE INDEX wallets_by_vault ON wallets (vault_id, created, id) INCLUDE (expires);
   CREATE INDEX wallets_by_expiry ON wallets (expires, id) WHERE expires IS NOT NULL;
   CREATE INDEX wallets_by_key_store ON wallets (key_store, id);
   CREATE INDEX wallets_by_key_ref ON wallets (key_store, key_ref);
   CREATE TABLE signatures (
     submission_hash text COLLATE "C" PRIMARY KEY,
     vault_id text COLLATE "C" NOT NULL,
     wallet_id text COLLATE "C" NOT NULL,
     wallet_address text NOT NULL,
     chain text NOT NULL,
     contract text NOT NULL,
     sender text NOT NULL,
     selector text NOT NULL,
     created timestamptz NOT NULL,
     transaction_hash text,
     submitted timestamptz
   );
   -- Auth-signature nonces accepted by any instance, kept until their signature could no longer be valid.
   CREATE TABLE auth_nonces (
     nonce text COLLATE "C" PRIMARY KEY,
     expires timestamptz NOT NULL
   );
   CREATE INDEX auth_nonces_by_expiry ON auth_nonces (expires);`,
  // 2: idempotent creates, the audit trail, sign policies.
  `CREATE TABLE idempotency_records (
     vault_id text COLLATE "C" NOT NULL,
     key text COLLATE "C" NOT NULL,
     request_hash text NOT NULL,
     response text NOT NULL,
     created timestamptz NOT NULL,
     expires timestamptz NOT NULL,
     PRIMARY KEY (vault_id, key)
   );
   CREATE INDEX idempotency_by_expiry ON idempotency_records (expires);
   -- details is the JSON text exactly as hashed and written (jsonb would reorder keys and renormalise numbers).
   CREATE TABLE audit_log (
     seq bigint PRIMARY KEY,
     at timestamptz NOT NULL,
     actor text NOT NULL,
     vault_id text COLLATE "C",
     subject text,
     action text NOT NULL,
     details text NOT NULL CHECK (details::jsonb IS NOT NULL),
     prev_hash text NOT NULL,
     hash text NOT NULL
   );
   CREATE INDEX audit_log_by_vault ON audit_log (vault_id, seq) WHERE vault_id IS NOT NULL;
   CREATE TABLE sign_policies (
     vault_id text COLLATE "C" PRIMARY KEY,
     policy text NOT NULL CHECK (policy::jsonb IS NOT NULL),
     updated timestamptz NOT NULL
   );`,
  // The uniq pinned for each contract of a sign policy (the digest binds uniq, not the contract address).
  `CREATE TABLE sign_policy_uniqs (
     vault_id text COLLATE "C" NOT NULL REFERENCES sign_policies (vault_id) ON DELETE CASCADE,
     contract text COLLATE "C" NOT NULL,
     uniq text NOT NULL CHECK (uniq ~ '^0x[0-9a-f]{64}$'),
     PRIMARY KEY (vault_id, contract)
   );`,
  // 4: any change to api_keys, by any path (the CLI, plain SQL, a restore), is announced on the channel
  // every instance's PostgresApiKeyCache listens on (API_KEY_CHANNEL): the key's id, or '' for all keys.
  `CREATE FUNCTION wallet_vault_api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'TRUNCATE' THEN
       PERFORM pg_notify('wallet_vault_api_keys', '');
     ELSIF TG_OP = 'INSERT' THEN
       PERFORM pg_notify('wallet_vault_api_keys', NEW.id);
     ELSE
       PERFORM pg_notify('wallet_vault_api_keys', OLD.id);
       IF TG_OP = 'UPDATE' AND NEW.id IS DISTINCT FROM OLD.id THEN
         PERFORM pg_notify('wallet_vault_api_keys', NEW.id);
       END IF;
     END IF;
     RETURN NULL;
   END $$;
   CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys
     FOR EACH ROW EXECUTE FUNCTION wallet_vault_api_keys_changed();
   CREATE TRIGGER api_keys_truncated AFTER TRUNCATE ON api_keys
     FOR EACH STATEMENT EXECUTE FUNCTION wallet_vault_api_keys_changed();`,
  // 5: the deployment's identity, created once with the database (a backup restored keeps it), recorded on
  // every key it creates; and the keys of this deployment no wallet names, kept for the operator.
  `CREATE TABLE deployment (
     singleton integer PRIMARY KEY CHECK (singleton = 1),
     id text COLLATE "C" NOT NULL,
     created timestamptz NOT NULL DEFAULT now()
   );
   INSERT INTO deployment (singleton, id) VALUES (1, replace(gen_random_uuid()::text, '-', ''));
   CREATE TABLE quarantined_keys (
     key_store text COLLATE "C" NOT NULL,
     key_ref text COLLATE "C" NOT NULL,
     address text COLLATE "C" NOT NULL,
     vault_id text COLLATE "C",
     quarantined timestamptz NOT NULL,
     PRIMARY KEY (key_store, key_ref)
   );`,
  // 6: what each API key may do and where from. Keys made before hold every role (the default), and
  // call from anywhere (null); a row change fires the api_keys trigger, so every instance's cache re-reads.
  `ALTER TABLE api_keys
     ADD COLUMN roles text NOT NULL DEFAULT 'admin,signer,reader,approver',
     ADD COLUMN allow_cidrs text;`,
  // Sign limits per window (issue 26; independent of the other migrations of that issue): a row per
  // counted key, whose row lock each take holds to its commit so takes on one key go one at a time
  // across instances, and a row per sign counted.
  `CREATE TABLE sign_count_keys (
     key text COLLATE "C" PRIMARY KEY,
     touched timestamptz NOT NULL
   );
   CREATE TABLE sign_counts (
     key text COLLATE "C" NOT NULL,
     at timestamptz NOT NULL
   );
   CREATE INDEX sign_counts_by_key ON sign_counts (key, at);`,
  // 8: the per-API-key request rate limit shared by every instance (postgres.request-rates.ts): a row per
  // counted key, in the columns and order rate-limiter-flexible's RateLimiterPostgres writes; `expire` is
  // the window's end in ms since the epoch, rows an hour past it are deleted by the library. Unlogged:
  // a count is not worth a WAL flush per request (a crash or a failover to a standby empties the table,
  // which restarts the keys' windows); the upsert then holds the key's row lock for no disk wait.
  `CREATE UNLOGGED TABLE request_rates (
     key varchar(255) PRIMARY KEY,
     points integer NOT NULL DEFAULT 0,
     expire bigint
   );`,
  // 9: approvals (issue 25, independent of the webhook migration of that issue): an approver key's group, the
  // signs held for a quorum (the request whole, as asked), and one vote per key (the primary key).
  `ALTER TABLE api_keys ADD COLUMN approver_group text;
   CREATE TABLE approvals (
     id text COLLATE "C" PRIMARY KEY,
     vault_id text COLLATE "C" NOT NULL REFERENCES vaults (id),
     status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
     rule_id text NOT NULL,
     required integer NOT NULL CHECK (required BETWEEN 1 AND 10),
     approver_group text,
     approvals integer NOT NULL DEFAULT 0,
     requester text COLLATE "C" NOT NULL,
     request text NOT NULL,
     request_hash text NOT NULL,
     idempotency_key text COLLATE "C",
     chain text NOT NULL,
     contract text NOT NULL,
     sender text NOT NULL,
     selector text NOT NULL,
     function_signature text NOT NULL,
     created timestamptz NOT NULL,
     expires timestamptz NOT NULL,
     decided timestamptz,
     release_token text,
     release_until timestamptz,
     result text
   );
   CREATE UNIQUE INDEX approvals_by_idempotency_key ON approvals (vault_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
   CREATE INDEX approvals_by_vault ON approvals (vault_id, created, id);
   CREATE INDEX approvals_pending_by_expiry ON approvals (expires) WHERE status = 'pending';
   CREATE TABLE approval_votes (
     approval_id text COLLATE "C" NOT NULL REFERENCES approvals (id) ON DELETE CASCADE,
     api_key_id text COLLATE "C" NOT NULL,
     vote text NOT NULL CHECK (vote IN ('approve', 'reject')),
     at timestamptz NOT NULL,
     PRIMARY KEY (approval_id, api_key_id)
   );`,
  // 10: webhooks (issue 25): the endpoints of each vault with their delivery cursor (the last audit seq done)
  // and retry state, the events given up on after 24 h, and the signing key generated when none is
  // configured (one row, so every instance signs with it).
  `CREATE TABLE webhook_endpoints (
     id text COLLATE "C" PRIMARY KEY,
     vault_id text COLLATE "C" NOT NULL REFERENCES vaults (id),
     url text NOT NULL,
     events text NOT NULL,
     created timestamptz NOT NULL,
     delivered_seq bigint NOT NULL,
     attempts integer NOT NULL DEFAULT 0,
     next_attempt timestamptz,
     first_failure timestamptz,
     last_error text
   );
   CREATE INDEX webhook_endpoints_by_vault ON webhook_endpoints (vault_id, created);
   CREATE INDEX webhook_endpoints_by_cursor ON webhook_endpoints (delivered_seq);
   CREATE TABLE webhook_undeliverable (
     endpoint_id text COLLATE "C" NOT NULL,
     seq bigint NOT NULL,
     vault_id text COLLATE "C" NOT NULL,
     type text NOT NULL,
     first_failure timestamptz NOT NULL,
     given_up timestamptz NOT NULL,
     attempts integer NOT NULL,
     last_error text,
     PRIMARY KEY (endpoint_id, seq)
   );
   CREATE INDEX webhook_undeliverable_by_vault ON webhook_undeliverable (vault_id, given_up);
   CREATE TABLE webhook_signing_key (
     singleton integer PRIMARY KEY CHECK (singleton = 1),
     private_key text NOT NULL,
     created timestamptz NOT NULL
   );`,
  // The one policy document (issue 34). sign_policies.policy may now hold a version-2 document, which a
  // build before this one would read as allow-lists that allow every call: the version bump makes such a
  // build refuse the database instead. Limits in value keep what each signature moved beside the counts.
  `CREATE TABLE IF NOT EXISTS sign_value_counts (
     key text COLLATE "C" NOT NULL,
     at timestamptz NOT NULL,
     amount numeric(78, 0) NOT NULL
   );
   CREATE INDEX IF NOT EXISTS sign_value_counts_by_key ON sign_value_counts (key, at);`,
  // Votes are signatures (issue 35): an approver key's credential (the Ethereum address its votes are
  // signed with; null: a key from before, whose votes count unsigned) and each vote's EIP-712 signature,
  // which the vault verifies again at release against the stored request. The api_keys trigger announces
  // a credential set or changed to every instance's cache, as any other change of the row.
  `ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS approver_address text;
   ALTER TABLE approval_votes ADD COLUMN IF NOT EXISTS signature text;
   ALTER TABLE approvals ADD COLUMN IF NOT EXISTS simulation text;`,
  // Governance (issue 35, docs/governance.md): a governed vault's genesis state and head, proposals of new
  // states with their signed votes, and freezes. One self-contained entry.
  `CREATE TABLE IF NOT EXISTS vault_governance (
     vault_id text COLLATE "C" PRIMARY KEY,
     genesis_state text NOT NULL,
     genesis_hash text NOT NULL,
     head_hash text NOT NULL,
     created timestamptz NOT NULL
   );
   CREATE TABLE IF NOT EXISTS governance_proposals (
     id text COLLATE "C" PRIMARY KEY,
     vault_id text COLLATE "C" NOT NULL,
     state text NOT NULL,
     document_hash text NOT NULL,
     previous_hash text NOT NULL,
     creator text NOT NULL,
     created timestamptz NOT NULL,
     status text NOT NULL,
     decided timestamptz,
     applied_seq integer
   );
   CREATE INDEX IF NOT EXISTS governance_proposals_by_vault ON governance_proposals (vault_id, created);
   CREATE TABLE IF NOT EXISTS governance_votes (
     proposal_id text COLLATE "C" NOT NULL,
     address text NOT NULL,
     decision text NOT NULL,
     signature text NOT NULL,
     created timestamptz NOT NULL,
     PRIMARY KEY (proposal_id, address)
   );
   CREATE TABLE IF NOT EXISTS vault_freezes (
     id text COLLATE "C" PRIMARY KEY,
     vault_id text COLLATE "C" NOT NULL,
     reason text,
     actor text NOT NULL,
     created timestamptz NOT NULL,
     lifted timestamptz
   );
   CREATE INDEX IF NOT EXISTS vault_freezes_by_vault ON vault_freezes (vault_id);`,
  // The approvers' console (issue 36, docs/console.md): an enrolled approver's passkey (keyed by its API
  // key, whose row holds the vault, the role and the group), one-time enrolment invites and console
  // sessions (both stored as sha256 hashes of what the browser holds), and the WebAuthn challenges handed
  // out for sign-in (one use, five minutes); the audit records behind an approval found by their subject. Self-contained and re-runnable (IF NOT EXISTS).
  `CREATE TABLE IF NOT EXISTS approver_passkeys (
     api_key_id text COLLATE "C" PRIMARY KEY,
     vault_id text NOT NULL,
     name text NOT NULL,
     credential_id text NOT NULL UNIQUE,
     public_key text NOT NULL,
     counter bigint NOT NULL,
     transports text,
     created timestamptz NOT NULL
   );
   CREATE TABLE IF NOT EXISTS console_invites (
     token_hash text COLLATE "C" PRIMARY KEY,
     vault_id text NOT NULL,
     approver_group text,
     created timestamptz NOT NULL,
     expires timestamptz NOT NULL,
     used timestamptz,
     api_key_id text
   );
   CREATE TABLE IF NOT EXISTS console_sessions (
     id_hash text COLLATE "C" PRIMARY KEY,
     api_key_id text NOT NULL,
     credential_id text NOT NULL,
     created timestamptz NOT NULL,
     last_seen timestamptz NOT NULL,
     ended timestamptz
   );
   CREATE INDEX IF NOT EXISTS console_sessions_by_key ON console_sessions (api_key_id);
   CREATE TABLE IF NOT EXISTS console_challenges (
     challenge text COLLATE "C" PRIMARY KEY,
     purpose text NOT NULL,
     subject text,
     expires timestamptz NOT NULL
   );
   CREATE INDEX IF NOT EXISTS console_challenges_by_expiry ON console_challenges (expires);
   CREATE INDEX IF NOT EXISTS audit_log_by_subject ON audit_log (vault_id, subject, seq) WHERE ${FOUND_BY_SUBJECT};`,
  // Wallet bindings (docs/security.md, "What a database writer can change"): a wallet's own key's signature
  // over its vault, address, key store and key reference, checked before every signature. The wallets
  // already there are bound once, by the first start that opens the key stores after this migration: the
  // marker row says so until that start has bound them (none where there are no wallets). Re-runnable.
  `ALTER TABLE wallets ADD COLUMN IF NOT EXISTS binding text;
   CREATE TABLE IF NOT EXISTS wallet_binding_upgrade (
     pending integer PRIMARY KEY CHECK (pending = 1)
   );
   INSERT INTO wallet_binding_upgrade (pending) SELECT 1 WHERE EXISTS (SELECT 1 FROM wallets) ON CONFLICT DO NOTHING;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Where the applied versions are recorded, in the vault's schema: named after the package, so a
 * `schema_migrations` of another tool sharing the schema (golang-migrate, Rails, Flyway-likes ...) is
 * never read or written.
 */
export const MIGRATIONS_TABLE = 'wallet_vault_migrations';
/** Where releases before the schema option recorded them; read once to upgrade, then left alone. */
const PREVIOUS_MIGRATIONS_TABLE = 'schema_migrations';

/** The tables and indexes each migration creates (its names the schema must not already hold), by version - 1. */
const CREATED_BY = MIGRATIONS.map((sql) => [...sql.matchAll(/CREATE (?:UNIQUE |UNLOGGED )?(?:TABLE|INDEX) (\w+)/g)].map((m) => m[1]!));

/** Columns of `wallets` as migration 1 made it: the mark of a table that is ours, not a namesake's. */
const OUR_WALLET_COLUMNS = ['id', 'account_id', 'vault_id', 'name', 'address', 'key_store', 'key_ref', 'created', 'updated', 'expires', 'version'];

// Any constant unique to this application; other applications sharing the server use other keys.
const MIGRATION_LOCK_KEY = 0x77616c6c6574n; // "wallet"

/**
 * Applies the missing migrations on a dedicated connection holding a session advisory lock, so when
 * many instances start at once exactly one migrates and the others wait, then find nothing to do. Each
 * migration commits together with its version row: a crash leaves the schema at a known version.
 * Refuses a database migrated by a newer build than this one, and a schema where names the vault
 * would create are already taken by something it did not make (it never writes to what is not its own).
 */
export async function migrate(db: MigrationTarget, timeoutMs: number): Promise<SchemaMigration & { readonly schema: string }> {
  const client = new pg.Client({
    // The pool's settings (an application's pool, or ours with the schema's search_path): the same
    // server, credentials and schema, on a connection of its own.
    ...(db.pool.options as pg.ClientConfig),
    connectionTimeoutMillis: db.config.connectTimeoutMs,
    query_timeout: timeoutMs,
    statement_timeout: timeoutMs,
    application_name: 'wallet-vault migrate',
  });
  client.on('error', () => undefined); // the pending query reports it
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    const schema = await enterSchema(client, db);
    const table = `${client.escapeIdentifier(schema)}.${MIGRATIONS_TABLE}`;
    await inTransaction(client, () => adoptSchema(client, db, schema, table));
    const { rows } = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${table}`);
    const current = rows[0]?.v ?? 0;
    if (current > MIGRATIONS.length) throw newerThanBuild(db.label, current, MIGRATIONS.length);
    for (let v = current; v < MIGRATIONS.length; v++) {
      await inTransaction(client, async () => {
        await client.query(MIGRATIONS[v]!);
        await client.query(`INSERT INTO ${table} (version) VALUES ($1)`, [v + 1]);
      });
    }
    return { from: current, to: MIGRATIONS.length, schema };
  } finally {
    // Ending the session releases the advisory lock even if unlocking was never reached.
    await client.end().catch(() => undefined);
  }
}

/**
 * Checks, creating and changing nothing (no schema, no table, no lock), that the schema the connection
 * resolves to holds this build's tables: a missing schema, one without the migrations table (new, or
 * left by a release that recorded versions elsewhere) or an older version is refused naming
 * `wallet-vault migrate` and where it looked; a newer one as migrate refuses it.
 */
export async function checkSchema(
  db: MigrationTarget & { query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> },
): Promise<SchemaMigration & { readonly schema: string }> {
  const wanted = db.config.schema;
  const { rows } = await db.query<{ schema: string | null; found: string | null }>(
    'SELECT current_schema() AS schema, to_regclass(quote_ident(current_schema()) || $1) AS found',
    [`.${MIGRATIONS_TABLE}`],
  );
  const schema = rows[0]?.schema ?? null;
  // The label names the schema when one was configured; else the one the search_path chose is added.
  const where = (name: string) =>
    wanted === undefined ? `${db.label}, schema "${name}" (the search_path's: choose the vault's with the schema option or VAULT_DATABASE_SCHEMA)` : db.label;
  if (schema === null || (wanted !== undefined && schema !== wanted)) {
    throw notMigrated(wanted === undefined ? `${db.label}: the search_path's schema` : db.label.replace(/, schema "/, ': schema "'), 'missing', MIGRATIONS.length);
  }
  let current = 0;
  if (rows[0]?.found !== null && rows[0]?.found !== undefined) {
    const versions = await db.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${pg.escapeIdentifier(schema)}.${MIGRATIONS_TABLE}`);
    current = versions.rows[0]?.v ?? 0;
  }
  if (current > MIGRATIONS.length) throw newerThanBuild(db.label, current, MIGRATIONS.length);
  if (current < MIGRATIONS.length) throw notMigrated(where(schema), current, MIGRATIONS.length);
  return { from: current, to: current, schema };
}

async function inTransaction(client: pg.Client, work: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Creates the configured schema if it is missing (asking first: CREATE SCHEMA needs the
 * right to create schemas even when it exists) and answers the schema this session creates in.
 */
async function enterSchema(client: pg.Client, db: MigrationTarget): Promise<string> {
  const wanted = db.config.schema;
  if (wanted !== undefined && !(await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [wanted])).rowCount) {
    await client.query(`CREATE SCHEMA ${client.escapeIdentifier(wanted)}`);
  }
  const { rows } = await client.query<{ schema: string | null }>('SELECT current_schema() AS schema');
  const schema = rows[0]?.schema;
  if (!schema || (wanted !== undefined && schema !== wanted)) {
    throw new DomainError(
      ErrorCode.DATABASE_UNAVAILABLE,
      `${db.label}: the connection's search_path names no schema that exists (${wanted ?? 'none chosen'}); choose one with the schema option or VAULT_DATABASE_SCHEMA (it is created if missing), or create the one your pool's search_path names`,
    );
  }
  return schema;
}

/**
 * Makes sure `table` (the vault's migrations table) exists. A schema without it is either new to the
 * vault, or was migrated by a release that recorded its versions in `schema_migrations`: recognised by
 * that table's shape, its versions being exactly 1..N of ours and the tables those versions create being
 * ours, its versions are copied over (in the caller's transaction, so a crash copies all or nothing).
 * Anything else that already holds a name the vault creates is refused, never written to.
 */
async function adoptSchema(client: pg.Client, db: MigrationTarget, schema: string, table: string): Promise<void> {
  const present = await relationsIn(client, schema);
  if (present.has(MIGRATIONS_TABLE)) return;
  const previous = await previousReleaseVersion(client, schema, present);
  const claimed = new Set(CREATED_BY.slice(0, previous).flat());
  const taken = CREATED_BY.flat().find((name) => present.has(name) && !claimed.has(name));
  if (taken !== undefined) {
    throw new DomainError(
      ErrorCode.DATABASE_UNAVAILABLE,
      `${db.label}: schema "${schema}" already has a ${present.get(taken)} "${taken}" that is not one wallet-vault made; ` +
        'give the vault a schema of its own with the schema option or VAULT_DATABASE_SCHEMA (it is created if missing)',
    );
  }
  await client.query(`CREATE TABLE ${table} (version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())`);
  if (previous > 0) {
    // The previous release's table stays as it was: rolling back to that release keeps working.
    await client.query(`INSERT INTO ${table} (version, applied) SELECT version, applied FROM ${client.escapeIdentifier(schema)}.${PREVIOUS_MIGRATIONS_TABLE}`);
  }
}

/** Tables, indexes, views ... in the schema: name to kind ("table", "index", "relation"). */
async function relationsIn(client: pg.Client, schema: string): Promise<Map<string, string>> {
  const { rows } = await client.query<{ name: string; kind: string }>(
    'SELECT c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1',
    [schema],
  );
  const kinds: Record<string, string> = { r: 'table', p: 'table', i: 'index', I: 'index' };
  return new Map(rows.map((r) => [r.name, kinds[r.kind] ?? 'relation']));
}

/**
 * N when the schema's `schema_migrations` is the one a previous release of the vault kept (columns
 * version integer and applied timestamptz, versions exactly 1..N of ours, every table they create
 * present, `wallets` with our columns); 0 when there is none or it belongs to another tool.
 */
async function previousReleaseVersion(client: pg.Client, schema: string, present: Map<string, string>): Promise<number> {
  if (present.get(PREVIOUS_MIGRATIONS_TABLE) !== 'table') return 0;
  const columnsOf = async (table: string) =>
    new Map(
      (
        await client.query<{ name: string; type: string }>(
          'SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
          [schema, table],
        )
      ).rows.map((r) => [r.name, r.type]),
    );
  const shape = await columnsOf(PREVIOUS_MIGRATIONS_TABLE);
  if (shape.size !== 2 || shape.get('version') !== 'integer' || shape.get('applied') !== 'timestamp with time zone') return 0;
  const { rows } = await client.query<{ n: number; low: number | null; high: number | null }>(
    `SELECT count(DISTINCT version)::int AS n, min(version) AS low, max(version) AS high FROM ${client.escapeIdentifier(schema)}.${PREVIOUS_MIGRATIONS_TABLE}`,
  );
  const { n, low, high } = rows[0]!;
  if (n === 0 || low !== 1 || high !== n || n > MIGRATIONS.length) return 0;
  if (!CREATED_BY.slice(0, n).flat().every((name) => present.has(name))) return 0;
  const walletColumns = await columnsOf('wallets');
  return OUR_WALLET_COLUMNS.every((c) => walletColumns.has(c)) ? n : 0;
}
