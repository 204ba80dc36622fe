import pg from 'pg';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import type { PostgresDatabase } from './postgres.database.js';

/**
 * Versioned schema changes, applied in order and recorded in `schema_migrations`. Never edit a
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
];

export const SCHEMA_VERSION = MIGRATIONS.length;

// Any constant unique to this application; other applications sharing the server use other keys.
const MIGRATION_LOCK_KEY = 0x77616c6c6574n; // "wallet"

/**
 * Applies the missing migrations on a dedicated connection holding a session advisory lock, so when
 * many instances start at once exactly one migrates and the others wait, then find nothing to do. Each
 * migration commits together with its version row: a crash leaves the schema at a known version.
 * Refuses a database migrated by a newer build than this one.
 */
export async function migrate(db: PostgresDatabase, timeoutMs: number): Promise<void> {
  const client = new pg.Client({
    // An application's pool: the same server and credentials, on a connection of its own.
    ...(db.config.pool ? (db.config.pool.options as pg.ClientConfig) : { connectionString: db.config.url }),
    connectionTimeoutMillis: db.config.connectTimeoutMs,
    query_timeout: timeoutMs,
    statement_timeout: timeoutMs,
    application_name: 'wallet-vault migrate',
  });
  client.on('error', () => undefined); // the pending query reports it
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    const current = rows[0]?.v ?? 0;
    if (current > MIGRATIONS.length) {
      throw new DomainError(
        ErrorCode.DATABASE_UNAVAILABLE,
        `${db.label} has schema version ${current}, newer than this build knows (${MIGRATIONS.length}); run the newer wallet-vault`,
      );
    }
    for (let v = current; v < MIGRATIONS.length; v++) {
      await client.query('BEGIN');
      try {
        await client.query(MIGRATIONS[v]!);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [v + 1]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    }
  } finally {
    // Ending the session releases the advisory lock even if unlocking was never reached.
    await client.end().catch(() => undefined);
  }
}
