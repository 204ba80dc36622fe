import type { Migration } from '../sql/migration-history.js';
import { FOUND_BY_SUBJECT } from '../sql/rows.js';

/**
 * The schema changes, applied in order by postgres.migrator.ts, which records each by name and
 * checksum in its MIGRATIONS_TABLE; this file is the DDL only, so the list reads as the schema's history
 * and the runner's rules (the lock, adopting older layouts, the start-up check) live apart from it. A
 * shipped migration is never edited, reordered or renamed: a change is a new entry at the end,
 * `{ name, sql }`, and `npm run migrations:freeze` then adds it to
 * adapters/persistence/migrations.manifest.json and to the schema this build expects
 * (test/contract/migrations-frozen.test.ts holds both to the list). Identifiers and keys compare
 * bytewise (COLLATE "C"), as SQLite's do, so list order and `id > afterId` paging agree between the two.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    name: 'initial-schema',
    sql: `CREATE TABLE accounts (
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
  },
  // 2: idempotent creates, the audit trail, sign policies.
  {
    name: 'idempotency-audit-policies',
    sql: `CREATE TABLE idempotency_records (
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
  },
  // The uniq pinned for each contract of a sign policy (the digest binds uniq, not the contract address).
  {
    name: 'sign-policy-uniqs',
    sql: `CREATE TABLE sign_policy_uniqs (
     vault_id text COLLATE "C" NOT NULL REFERENCES sign_policies (vault_id) ON DELETE CASCADE,
     contract text COLLATE "C" NOT NULL,
     uniq text NOT NULL CHECK (uniq ~ '^0x[0-9a-f]{64}$'),
     PRIMARY KEY (vault_id, contract)
   );`,
  },
  // 4: any change to api_keys, by any path (the CLI, plain SQL, a restore), is announced on the channel
  // every instance's PostgresApiKeyCache listens on (API_KEY_CHANNEL): the key's id, or '' for all keys.
  {
    name: 'api-keys-change-trigger',
    sql: `CREATE FUNCTION wallet_vault_api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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
  },
  // 5: the deployment's identity, created once with the database (a backup restored keeps it), recorded on
  // every key it creates; and the keys of this deployment no wallet names, kept for the operator.
  {
    name: 'deployment-and-quarantine',
    sql: `CREATE TABLE deployment (
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
  },
  // 6: what each API key may do and where from. Keys made before hold every role (the default), and
  // call from anywhere (null); a row change fires the api_keys trigger, so every instance's cache re-reads.
  {
    name: 'api-key-roles',
    sql: `ALTER TABLE api_keys
     ADD COLUMN roles text NOT NULL DEFAULT 'admin,signer,reader,approver',
     ADD COLUMN allow_cidrs text;`,
  },
  // Sign limits per window (self-contained: it needs no other migration): a row per
  // counted key, whose row lock each take holds to its commit so takes on one key go one at a time
  // across instances, and a row per sign counted.
  {
    name: 'sign-counts',
    sql: `CREATE TABLE sign_count_keys (
     key text COLLATE "C" PRIMARY KEY,
     touched timestamptz NOT NULL
   );
   CREATE TABLE sign_counts (
     key text COLLATE "C" NOT NULL,
     at timestamptz NOT NULL
   );
   CREATE INDEX sign_counts_by_key ON sign_counts (key, at);`,
  },
  // 8: the per-API-key request rate limit shared by every instance (postgres.request-rates.ts): a row per
  // counted key, in the columns and order rate-limiter-flexible's RateLimiterPostgres writes; `expire` is
  // the window's end in ms since the epoch, rows an hour past it are deleted by the library. Unlogged:
  // a count is not worth a WAL flush per request (a crash or a failover to a standby empties the table,
  // which restarts the keys' windows); the upsert then holds the key's row lock for no disk wait.
  {
    name: 'request-rates',
    sql: `CREATE UNLOGGED TABLE request_rates (
     key varchar(255) PRIMARY KEY,
     points integer NOT NULL DEFAULT 0,
     expire bigint
   );`,
  },
  // 9: approvals (a migration of its own, apart from the webhooks'): an approver key's group, the
  // signs held for a quorum (the request whole, as asked), and one vote per key (the primary key).
  {
    name: 'approvals',
    sql: `ALTER TABLE api_keys ADD COLUMN approver_group text;
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
  },
  // 10: webhooks: the endpoints of each vault with their delivery cursor (the last audit seq done)
  // and retry state, the events given up on after 24 h, and the signing key generated when none is
  // configured (one row, so every instance signs with it).
  {
    name: 'webhooks',
    sql: `CREATE TABLE webhook_endpoints (
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
  },
  // The one policy document. sign_policies.policy may now hold a version-2 document, which a
  // build before this one would read as allow-lists that allow every call: the version bump makes such a
  // build refuse the database instead. Limits in value keep what each signature moved beside the counts.
  {
    name: 'sign-value-counts',
    sql: `CREATE TABLE IF NOT EXISTS sign_value_counts (
     key text COLLATE "C" NOT NULL,
     at timestamptz NOT NULL,
     amount numeric(78, 0) NOT NULL
   );
   CREATE INDEX IF NOT EXISTS sign_value_counts_by_key ON sign_value_counts (key, at);`,
  },
  // Votes are signatures: an approver key's credential (the Ethereum address its votes are
  // signed with; null: a key from before, whose votes count unsigned) and each vote's EIP-712 signature,
  // which the vault verifies again at release against the stored request. The api_keys trigger announces
  // a credential set or changed to every instance's cache, as any other change of the row.
  {
    name: 'signed-votes',
    sql: `ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS approver_address text;
   ALTER TABLE approval_votes ADD COLUMN IF NOT EXISTS signature text;
   ALTER TABLE approvals ADD COLUMN IF NOT EXISTS simulation text;`,
  },
  // Governance (docs/governance.md): a governed vault's genesis state and head, proposals of new
  // states with their signed votes, and freezes. One self-contained entry.
  {
    name: 'governance',
    sql: `CREATE TABLE IF NOT EXISTS vault_governance (
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
  },
  // The approvers' console (docs/console.md): an enrolled approver's passkey (keyed by its API
  // key, whose row holds the vault, the role and the group), one-time enrolment invites and console
  // sessions (both stored as sha256 hashes of what the browser holds), and the WebAuthn challenges handed
  // out for sign-in (one use, five minutes); the audit records behind an approval found by their subject. Self-contained and re-runnable (IF NOT EXISTS).
  {
    name: 'approvers-console',
    sql: `CREATE TABLE IF NOT EXISTS approver_passkeys (
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
  },
  // Sign-in challenges counted per client (docs/console.md, "Sign-in challenges"): the address a challenge
  // was handed to (an IPv6 client's /48), so one client holds a few at most. Rows from before have none
  // and count only towards the cap of all.
  {
    name: 'console-challenges-by-client',
    sql: `ALTER TABLE console_challenges ADD COLUMN IF NOT EXISTS client text COLLATE "C";
   CREATE INDEX IF NOT EXISTS console_challenges_by_client ON console_challenges (client, expires);`,
  },
  // Wallet bindings (docs/security.md, "What a database writer can change"): a wallet's own key's signature
  // over its vault, address, key store and key reference, checked before every signature. The wallets
  // already there are bound once, by the first start that opens the key stores after this migration: the
  // marker row says so until that start has bound them (none where there are no wallets). Re-runnable.
  {
    name: 'wallet-binding',
    sql: `ALTER TABLE wallets ADD COLUMN IF NOT EXISTS binding text;
   CREATE TABLE IF NOT EXISTS wallet_binding_upgrade (
     pending integer PRIMARY KEY CHECK (pending = 1)
   );
   INSERT INTO wallet_binding_upgrade (pending) SELECT 1 WHERE EXISTS (SELECT 1 FROM wallets) ON CONFLICT DO NOTHING;`,
  },
  // Held requests sealed (docs/security.md, "What a database writer can change"): the held request's wallet
  // signs the row's id, vault, requester, created, expires and requestHash when it is held; the vote and the
  // release check it. Requests held before this migration have none and are not released (ask them again).
  {
    name: 'held-request-seal',
    sql: `ALTER TABLE approvals ADD COLUMN IF NOT EXISTS seal text;`,
  },
  // API keys with a lifecycle (docs/security.md "API key lifecycle"): an operator's label, an
  // expiry, and rotation: the old key's row names its successor and the end of the overlap, the successor
  // names the key it replaces and when it was first used (which ends the old key's overlap early). Keys
  // from before have none of them: no label, no expiry, never rotated. Re-runnable.
  {
    name: 'api-key-lifecycle',
    sql: `ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS label text;
   ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS expires timestamptz;
   ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS replaced_by text COLLATE "C";
   ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS overlap_ends timestamptz;
   ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS replaces text COLLATE "C";
   ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS first_used timestamptz;`,
  },
  // Audit streaming (docs/operations.md "Audit streaming"): how far each sink (syslog, OTLP) has received
  // the audit chain, so a restarted instance, or the next one to take the job lock, resumes after it.
  {
    name: 'audit-stream-cursors',
    sql: `CREATE TABLE IF NOT EXISTS audit_stream_cursors (
     sink text COLLATE "C" PRIMARY KEY,
     delivered_seq bigint NOT NULL
   );`,
  },
  // HD wallets (docs/keystores.md#hd-wallets): the BIP-32 path a derived wallet's key was derived at (null
  // for every wallet before, and for generated or imported keys), and each vault's next derivation index,
  // reserved before the key is derived so that no index is used twice. Re-runnable.
  {
    name: 'hd-derivation',
    sql: `ALTER TABLE wallets ADD COLUMN IF NOT EXISTS derivation_path text;
   CREATE TABLE IF NOT EXISTS hd_indexes (
     vault_id text COLLATE "C" PRIMARY KEY,
     next_index integer NOT NULL
   );`,
  },
  // Named operators (docs/operators.md): a person's name, roles and vault scope, and the sha256 of the secret
  // of its credential (never the credential). A name is one person for good: revoked rows stay, so the
  // audit trail's `operator:<name>` always names one row. Re-runnable.
  {
    name: 'operators',
    sql: `CREATE TABLE IF NOT EXISTS operators (
     id text COLLATE "C" PRIMARY KEY,
     name text COLLATE "C" NOT NULL UNIQUE,
     roles text NOT NULL,
     vaults text,
     secret_hash text NOT NULL,
     created timestamptz NOT NULL,
     revoked timestamptz
   );`,
  },
  // Key export (docs/keystores.md#key-export): when a wallet's key (or its vault's HD seed) first left the
  // vault, encrypted to a recipient (null for every wallet before: none was ever exported), and each export
  // as done: who, what, to which recipient key fingerprint (never the key), and the governed entry it
  // carried out, once (unique: a proposal's export is done one time). Re-runnable.
  {
    name: 'key-export',
    sql: `ALTER TABLE wallets ADD COLUMN IF NOT EXISTS exported timestamptz;
   CREATE TABLE IF NOT EXISTS key_exports (
     id text COLLATE "C" PRIMARY KEY,
     vault_id text COLLATE "C" NOT NULL,
     kind text NOT NULL,
     wallet_id text COLLATE "C",
     recipient text NOT NULL,
     authorization_id text COLLATE "C" UNIQUE,
     actor text NOT NULL,
     created timestamptz NOT NULL
   );
   CREATE INDEX IF NOT EXISTS key_exports_vault ON key_exports (vault_id, kind);`,
  },
  // Why a pending request with its quorum was not released (its last release attempt refused: a limit, a
  // freeze, governance, a simulation, a sealed vault), shown where its status is; null on every row before
  // and cleared by the release that succeeds. Re-runnable.
  {
    name: 'approval-blocked-by',
    sql: `ALTER TABLE approvals ADD COLUMN IF NOT EXISTS blocked_by text;
   ALTER TABLE approvals ADD COLUMN IF NOT EXISTS blocked_code text;
   ALTER TABLE approvals ADD COLUMN IF NOT EXISTS blocked_message text;
   ALTER TABLE approvals ADD COLUMN IF NOT EXISTS blocked_at timestamptz;`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;
