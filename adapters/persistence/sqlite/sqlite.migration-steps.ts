import type { Migration } from '../sql/migration-history.js';
import { FOUND_BY_SUBJECT } from '../sql/rows.js';

/**
 * The schema changes, applied in order by sqlite.migrator.ts, which records each by name and checksum
 * in MIGRATIONS_TABLE (and counts them in PRAGMA user_version, which builds before named migrations
 * read); this file is the DDL only, so the list reads as the schema's history and the runner's rules
 * (adopting older layouts, the start-up check) live apart from it. A shipped migration is
 * never edited, reordered or renamed: a change is a new entry at the end, `{ name, sql }`, and
 * `npm run migrations:freeze` then adds it to adapters/persistence/migrations.manifest.json
 * and to the schema this build expects (test/contract/migrations-frozen.test.ts holds both to the list).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    name: 'initial-schema',
    sql: `CREATE TABLE accounts (
     id TEXT PRIMARY KEY,
     created INTEGER NOT NULL
   );
   CREATE TABLE vaults (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id),
     name TEXT NOT NULL,
     created INTEGER NOT NULL
   );
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     vault_id TEXT NOT NULL REFERENCES vaults(id),
     secret_hash TEXT NOT NULL,
     created INTEGER NOT NULL,
     revoked INTEGER
   );
   CREATE INDEX api_keys_by_vault ON api_keys (vault_id, created);
   CREATE TABLE wallets (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL,
     vault_id TEXT NOT NULL REFERENCES vaults(id),
     name TEXT NOT NULL,
     address TEXT NOT NULL UNIQUE,
     key_store TEXT NOT NULL,
     key_ref TEXT NOT NULL,
     created INTEGER NOT NULL,
     updated INTEGER NOT NULL,
     expires INTEGER,
     version INTEGER NOT NULL
   );
   -- Covers list and count: the scan for a page or a total never leaves the index.
   CREATE INDEX wallets_by_vault ON wallets (vault_id, created, id, expires);
   CREATE INDEX wallets_by_expiry ON wallets (expires) WHERE expires IS NOT NULL;
   CREATE INDEX wallets_expiring_by_vault ON wallets (vault_id, expires) WHERE expires IS NOT NULL;
   -- Rows per vault kept by triggers, so the total is O(1); the few expired-but-not-purged rows are
   -- subtracted at read time through the partial index above. \`generation\` moves on every change
   -- that can shift list positions, so cached page anchors know when they are stale.
   CREATE TABLE wallet_counts (
     vault_id TEXT PRIMARY KEY,
     rows INTEGER NOT NULL,
     generation INTEGER NOT NULL DEFAULT 0
   );
   CREATE TRIGGER wallets_count_insert AFTER INSERT ON wallets BEGIN
     INSERT INTO wallet_counts (vault_id, rows, generation) VALUES (NEW.vault_id, 1, 1)
       ON CONFLICT (vault_id) DO UPDATE SET rows = rows + 1, generation = generation + 1;
   END;
   CREATE TRIGGER wallets_count_delete AFTER DELETE ON wallets BEGIN
     UPDATE wallet_counts SET rows = rows - 1, generation = generation + 1 WHERE vault_id = OLD.vault_id;
   END;
   CREATE TRIGGER wallets_generation_update AFTER UPDATE OF expires, created ON wallets BEGIN
     UPDATE wallet_counts SET generation = generation + 1 WHERE vault_id = NEW.vault_id;
   END;
   CREATE TABLE signatures (
     submission_hash TEXT PRIMARY KEY,
     vault_id TEXT NOT NULL,
     wallet_id TEXT NOT NULL,
     wallet_address TEXT NOT NULL,
     chain TEXT NOT NULL,
     contract TEXT NOT NULL,
     sender TEXT NOT NULL,
     selector TEXT NOT NULL,
     created INTEGER NOT NULL,
     transaction_hash TEXT,
     submitted INTEGER
   );`,
  },
  // 2: idempotent creates, the audit trail, sign policies.
  {
    name: 'idempotency-audit-policies',
    sql: `CREATE TABLE idempotency_records (
     vault_id TEXT NOT NULL,
     key TEXT NOT NULL,
     request_hash TEXT NOT NULL,
     response TEXT NOT NULL,
     created INTEGER NOT NULL,
     expires INTEGER NOT NULL,
     PRIMARY KEY (vault_id, key)
   ) WITHOUT ROWID;
   CREATE INDEX idempotency_by_expiry ON idempotency_records (expires);
   -- seq is the rowid: appends go to the end of the b-tree, and the head is its last entry.
   CREATE TABLE audit_log (
     seq INTEGER PRIMARY KEY,
     at INTEGER NOT NULL,
     actor TEXT NOT NULL,
     vault_id TEXT,
     subject TEXT,
     action TEXT NOT NULL,
     details TEXT NOT NULL CHECK (json_valid(details)),
     prev_hash TEXT NOT NULL,
     hash TEXT NOT NULL
   );
   CREATE INDEX audit_log_by_vault ON audit_log (vault_id, seq) WHERE vault_id IS NOT NULL;
   CREATE TABLE sign_policies (
     vault_id TEXT PRIMARY KEY,
     policy TEXT NOT NULL CHECK (json_valid(policy)),
     updated INTEGER NOT NULL
   );`,
  },
  // Auth-signature nonces shared by the worker processes of one server (VAULT_WORKERS > 1).
  {
    name: 'auth-nonces',
    sql: `CREATE TABLE auth_nonces (
     nonce TEXT PRIMARY KEY,
     expires INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX auth_nonces_by_expiry ON auth_nonces (expires);`,
  },
  // The uniq pinned for each contract of a sign policy (the digest binds uniq, not the contract address).
  {
    name: 'sign-policy-uniqs',
    sql: `CREATE TABLE sign_policy_uniqs (
     vault_id TEXT NOT NULL REFERENCES sign_policies (vault_id) ON DELETE CASCADE,
     contract TEXT NOT NULL,
     uniq TEXT NOT NULL CHECK (length(uniq) = 66 AND substr(uniq, 1, 2) = '0x' AND substr(uniq, 3) NOT GLOB '*[^0-9a-f]*'),
     PRIMARY KEY (vault_id, contract)
   ) WITHOUT ROWID;`,
  },
  // The deployment's identity, created once with the database (a backup restored keeps it), recorded on
  // every key it creates; and the keys of this deployment no wallet names, kept for the operator.
  {
    name: 'deployment-and-quarantine',
    sql: `CREATE TABLE deployment (
     singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
     id TEXT NOT NULL,
     created INTEGER NOT NULL
   );
   INSERT INTO deployment (singleton, id, created)
     VALUES (1, lower(hex(randomblob(16))), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
   CREATE TABLE quarantined_keys (
     key_store TEXT NOT NULL,
     key_ref TEXT NOT NULL,
     address TEXT NOT NULL,
     vault_id TEXT,
     quarantined INTEGER NOT NULL,
     PRIMARY KEY (key_store, key_ref)
   ) WITHOUT ROWID;`,
  },
  // What each API key may do and where from: keys made before hold every role (the default) and call
  // from anywhere (null).
  {
    name: 'api-key-roles',
    sql: `ALTER TABLE api_keys ADD COLUMN roles TEXT NOT NULL DEFAULT 'admin,signer,reader,approver';
   ALTER TABLE api_keys ADD COLUMN allow_cidrs TEXT;`,
  },
  // Sign limits per window (self-contained: it needs no other migration): a row per
  // counted key, written first by each take to serialise takes on it, and a row per sign counted.
  {
    name: 'sign-counts',
    sql: `CREATE TABLE sign_count_keys (
     key TEXT PRIMARY KEY,
     touched INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE sign_counts (
     key TEXT NOT NULL,
     at INTEGER NOT NULL
   );
   CREATE INDEX sign_counts_by_key ON sign_counts (key, at);`,
  },
  // Approvals (a migration of its own, apart from the webhooks'): an approver key's group, the
  // signs held for a quorum (the request whole, as asked), and one vote per key (the primary key).
  {
    name: 'approvals',
    sql: `ALTER TABLE api_keys ADD COLUMN approver_group TEXT;
   CREATE TABLE approvals (
     id TEXT PRIMARY KEY,
     vault_id TEXT NOT NULL REFERENCES vaults (id),
     status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
     rule_id TEXT NOT NULL,
     required INTEGER NOT NULL CHECK (required BETWEEN 1 AND 10),
     approver_group TEXT,
     approvals INTEGER NOT NULL DEFAULT 0,
     requester TEXT NOT NULL,
     request TEXT NOT NULL CHECK (json_valid(request)),
     request_hash TEXT NOT NULL,
     idempotency_key TEXT,
     chain TEXT NOT NULL,
     contract TEXT NOT NULL,
     sender TEXT NOT NULL,
     selector TEXT NOT NULL,
     function_signature TEXT NOT NULL,
     created INTEGER NOT NULL,
     expires INTEGER NOT NULL,
     decided INTEGER,
     release_token TEXT,
     release_until INTEGER,
     result TEXT
   ) WITHOUT ROWID;
   CREATE UNIQUE INDEX approvals_by_idempotency_key ON approvals (vault_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
   CREATE INDEX approvals_by_vault ON approvals (vault_id, created, id);
   CREATE INDEX approvals_pending_by_expiry ON approvals (expires) WHERE status = 'pending';
   CREATE TABLE approval_votes (
     approval_id TEXT NOT NULL REFERENCES approvals (id) ON DELETE CASCADE,
     api_key_id TEXT NOT NULL,
     vote TEXT NOT NULL CHECK (vote IN ('approve', 'reject')),
     at INTEGER NOT NULL,
     PRIMARY KEY (approval_id, api_key_id)
   ) WITHOUT ROWID;`,
  },
  // Webhooks: the endpoints of each vault with their delivery cursor (the last audit seq done)
  // and retry state, the events given up on after 24 h, and the signing key generated when none is
  // configured (one row, so every instance signs with it).
  {
    name: 'webhooks',
    sql: `CREATE TABLE webhook_endpoints (
     id TEXT PRIMARY KEY,
     vault_id TEXT NOT NULL REFERENCES vaults(id),
     url TEXT NOT NULL,
     events TEXT NOT NULL,
     created INTEGER NOT NULL,
     delivered_seq INTEGER NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt INTEGER,
     first_failure INTEGER,
     last_error TEXT
   );
   CREATE INDEX webhook_endpoints_by_vault ON webhook_endpoints (vault_id, created);
   CREATE INDEX webhook_endpoints_by_cursor ON webhook_endpoints (delivered_seq);
   CREATE TABLE webhook_undeliverable (
     endpoint_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     vault_id TEXT NOT NULL,
     type TEXT NOT NULL,
     first_failure INTEGER NOT NULL,
     given_up INTEGER NOT NULL,
     attempts INTEGER NOT NULL,
     last_error TEXT,
     PRIMARY KEY (endpoint_id, seq)
   ) WITHOUT ROWID;
   CREATE INDEX webhook_undeliverable_by_vault ON webhook_undeliverable (vault_id, given_up);
   CREATE TABLE webhook_signing_key (
     singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
     private_key TEXT NOT NULL,
     created INTEGER NOT NULL
   );`,
  },
  // 10: signatures found by a short index on the submission hash's first 8 hex digits instead of a primary
  // key on the whole 66-character hash. Each sign's random hash dirties a leaf of that index: a b-tree
  // of a fifth of the size writes, checkpoints and caches fewer pages per commit (about 5 % of a sign's
  // CPU, docs/benchmarks.md "Measured design decisions"). Lookups compare the whole hash after the prefix; a shared prefix
  // costs one more row read. No uniqueness is lost that mattered: the hash covers a fresh 32-byte nonce.
  // SQLite cannot drop a primary key, so the table is rebuilt (rows keep their order and values).
  {
    name: 'signatures-short-hash-index',
    sql: `ALTER TABLE signatures RENAME TO signatures_before_v10;
   CREATE TABLE signatures (
     submission_hash TEXT NOT NULL,
     vault_id TEXT NOT NULL,
     wallet_id TEXT NOT NULL,
     wallet_address TEXT NOT NULL,
     chain TEXT NOT NULL,
     contract TEXT NOT NULL,
     sender TEXT NOT NULL,
     selector TEXT NOT NULL,
     created INTEGER NOT NULL,
     transaction_hash TEXT,
     submitted INTEGER
   );
   INSERT INTO signatures SELECT submission_hash, vault_id, wallet_id, wallet_address, chain, contract, sender, selector, created, transaction_hash, submitted
     FROM signatures_before_v10 ORDER BY rowid;
   DROP TABLE signatures_before_v10;
   CREATE INDEX signatures_by_hash ON signatures (substr(submission_hash, 3, 8));`,
  },
  // 11: the one policy document. sign_policies.policy may now hold a version-2 document, which
  // a build before this one would read as allow-lists that allow every call: the version bump makes such
  // a build refuse the database instead. Limits in value keep what each signature moved (wei or token
  // units, decimal text) beside the counts of signs.
  {
    name: 'sign-value-counts',
    sql: `CREATE TABLE IF NOT EXISTS sign_value_counts (
     key TEXT NOT NULL,
     at INTEGER NOT NULL,
     amount TEXT NOT NULL
   );
   CREATE INDEX IF NOT EXISTS sign_value_counts_by_key ON sign_value_counts (key, at);`,
  },
  // Votes are signatures: an approver key's credential (the Ethereum address its votes are
  // signed with; null: a key from before, whose votes count unsigned) and each vote's EIP-712 signature,
  // which the vault verifies again at release against the stored request. And what the
  // simulation of a held transaction found, shown with the approval.
  {
    name: 'signed-votes',
    sql: `ALTER TABLE api_keys ADD COLUMN approver_address TEXT;
   ALTER TABLE approval_votes ADD COLUMN signature TEXT;
   ALTER TABLE approvals ADD COLUMN simulation TEXT;`,
  },
  // Governance (docs/governance.md): a governed vault's genesis state and head, proposals of new
  // states with their signed votes, and freezes. One self-contained entry.
  {
    name: 'governance',
    sql: `CREATE TABLE IF NOT EXISTS vault_governance (
     vault_id TEXT PRIMARY KEY,
     genesis_state TEXT NOT NULL,
     genesis_hash TEXT NOT NULL,
     head_hash TEXT NOT NULL,
     created INTEGER NOT NULL
   );
   CREATE TABLE IF NOT EXISTS governance_proposals (
     id TEXT PRIMARY KEY,
     vault_id TEXT NOT NULL,
     state TEXT NOT NULL,
     document_hash TEXT NOT NULL,
     previous_hash TEXT NOT NULL,
     creator TEXT NOT NULL,
     created INTEGER NOT NULL,
     status TEXT NOT NULL,
     decided INTEGER,
     applied_seq INTEGER
   );
   CREATE INDEX IF NOT EXISTS governance_proposals_by_vault ON governance_proposals (vault_id, created);
   CREATE TABLE IF NOT EXISTS governance_votes (
     proposal_id TEXT NOT NULL,
     address TEXT NOT NULL,
     decision TEXT NOT NULL,
     signature TEXT NOT NULL,
     created INTEGER NOT NULL,
     PRIMARY KEY (proposal_id, address)
   );
   CREATE TABLE IF NOT EXISTS vault_freezes (
     id TEXT PRIMARY KEY,
     vault_id TEXT NOT NULL,
     reason TEXT,
     actor TEXT NOT NULL,
     created INTEGER NOT NULL,
     lifted INTEGER
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
     api_key_id TEXT PRIMARY KEY,
     vault_id TEXT NOT NULL,
     name TEXT NOT NULL,
     credential_id TEXT NOT NULL UNIQUE,
     public_key TEXT NOT NULL,
     counter INTEGER NOT NULL,
     transports TEXT,
     created INTEGER NOT NULL
   );
   CREATE TABLE IF NOT EXISTS console_invites (
     token_hash TEXT PRIMARY KEY,
     vault_id TEXT NOT NULL,
     approver_group TEXT,
     created INTEGER NOT NULL,
     expires INTEGER NOT NULL,
     used INTEGER,
     api_key_id TEXT
   );
   CREATE TABLE IF NOT EXISTS console_sessions (
     id_hash TEXT PRIMARY KEY,
     api_key_id TEXT NOT NULL,
     credential_id TEXT NOT NULL,
     created INTEGER NOT NULL,
     last_seen INTEGER NOT NULL,
     ended INTEGER
   );
   CREATE INDEX IF NOT EXISTS console_sessions_by_key ON console_sessions (api_key_id);
   CREATE TABLE IF NOT EXISTS console_challenges (
     challenge TEXT PRIMARY KEY,
     purpose TEXT NOT NULL,
     subject TEXT,
     expires INTEGER NOT NULL
   );
   CREATE INDEX IF NOT EXISTS console_challenges_by_expiry ON console_challenges (expires);
   CREATE INDEX IF NOT EXISTS audit_log_by_subject ON audit_log (vault_id, subject, seq) WHERE ${FOUND_BY_SUBJECT};`,
  },
  // Sign-in challenges counted per client (docs/console.md, "Sign-in challenges"): the address a challenge
  // was handed to (an IPv6 client's /48), so one client holds a few at most. The table is made again with
  // the column (re-runnable, as SQLite adds no column IF NOT EXISTS): its rows live five minutes, and a
  // sign-in under way when the vault is upgraded asks for a new challenge.
  {
    name: 'console-challenges-by-client',
    sql: `DROP TABLE IF EXISTS console_challenges;
   CREATE TABLE console_challenges (
     challenge TEXT PRIMARY KEY,
     purpose TEXT NOT NULL,
     subject TEXT,
     client TEXT,
     expires INTEGER NOT NULL
   );
   CREATE INDEX console_challenges_by_expiry ON console_challenges (expires);
   CREATE INDEX console_challenges_by_client ON console_challenges (client, expires);`,
  },
  // Wallet bindings (docs/security.md, "What a database writer can change"): a wallet's own key's signature
  // over its vault, address, key store and key reference, checked before every signature. The wallets
  // already there are bound once, by the first start that opens the key stores after this migration: the
  // marker row says so until that start has bound them (none where there are no wallets).
  {
    name: 'wallet-binding',
    sql: `ALTER TABLE wallets ADD COLUMN binding TEXT;
   CREATE TABLE IF NOT EXISTS wallet_binding_upgrade (
     pending INTEGER PRIMARY KEY CHECK (pending = 1)
   );
   INSERT OR IGNORE INTO wallet_binding_upgrade (pending) SELECT 1 WHERE EXISTS (SELECT 1 FROM wallets);`,
  },
  // Held requests sealed (docs/security.md, "What a database writer can change"): the held request's wallet
  // signs the row's id, vault, requester, created, expires and requestHash when it is held; the vote and the
  // release check it. Requests held before this migration have none and are not released (ask them again).
  {
    name: 'held-request-seal',
    sql: `ALTER TABLE approvals ADD COLUMN seal TEXT;`,
  },
  // API keys with a lifecycle (docs/security.md "API key lifecycle"): an operator's label, an
  // expiry, and rotation: the old key's row names its successor and the end of the overlap, the successor
  // names the key it replaces and when it was first used (which ends the old key's overlap early). Keys
  // from before have none of them: no label, no expiry, never rotated.
  {
    name: 'api-key-lifecycle',
    sql: `ALTER TABLE api_keys ADD COLUMN label TEXT;
   ALTER TABLE api_keys ADD COLUMN expires INTEGER;
   ALTER TABLE api_keys ADD COLUMN replaced_by TEXT;
   ALTER TABLE api_keys ADD COLUMN overlap_ends INTEGER;
   ALTER TABLE api_keys ADD COLUMN replaces TEXT;
   ALTER TABLE api_keys ADD COLUMN first_used INTEGER;`,
  },
  // Audit streaming (docs/operations.md "Audit streaming"): how far each sink (syslog, OTLP) has received
  // the audit chain, so a restarted instance, or the next one to take the job lock, resumes after it.
  {
    name: 'audit-stream-cursors',
    sql: `CREATE TABLE IF NOT EXISTS audit_stream_cursors (
     sink TEXT PRIMARY KEY,
     delivered_seq INTEGER NOT NULL
   );`,
  },
  // HD wallets (docs/keystores.md#hd-wallets): the BIP-32 path a derived wallet's key was derived at (null
  // for every wallet before, and for generated or imported keys), and each vault's next derivation index,
  // reserved before the key is derived so that no index is used twice.
  {
    name: 'hd-derivation',
    sql: `ALTER TABLE wallets ADD COLUMN derivation_path TEXT;
   CREATE TABLE IF NOT EXISTS hd_indexes (
     vault_id TEXT PRIMARY KEY,
     next_index INTEGER NOT NULL
   );`,
  },
  // Named operators (docs/operators.md): a person's name, roles and vault scope, and the sha256 of the secret
  // of its credential (never the credential). A name is one person for good: revoked rows stay, so the
  // audit trail's `operator:<name>` always names one row.
  {
    name: 'operators',
    sql: `CREATE TABLE operators (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     roles TEXT NOT NULL,
     vaults TEXT,
     secret_hash TEXT NOT NULL,
     created INTEGER NOT NULL,
     revoked INTEGER
   );`,
  },
  // Key export (docs/keystores.md#key-export): when a wallet's key (or its vault's HD seed) first left the
  // vault, encrypted to a recipient (null for every wallet before: none was ever exported), and each export
  // as done: who, what, to which recipient key fingerprint (never the key), and the governed entry it
  // carried out, once (unique: a proposal's export is done one time).
  {
    name: 'key-export',
    sql: `ALTER TABLE wallets ADD COLUMN exported INTEGER;
   CREATE TABLE IF NOT EXISTS key_exports (
     id TEXT PRIMARY KEY,
     vault_id TEXT NOT NULL,
     kind TEXT NOT NULL,
     wallet_id TEXT,
     recipient TEXT NOT NULL,
     authorization_id TEXT UNIQUE,
     actor TEXT NOT NULL,
     created INTEGER NOT NULL
   );
   CREATE INDEX IF NOT EXISTS key_exports_vault ON key_exports (vault_id, kind);`,
  },
  // Why a pending request with its quorum was not released (its last release attempt refused: a limit, a
  // freeze, governance, a simulation, a sealed vault), shown where its status is; null on every row before
  // and cleared by the release that succeeds.
  {
    name: 'approval-blocked-by',
    sql: `ALTER TABLE approvals ADD COLUMN blocked_by TEXT;
   ALTER TABLE approvals ADD COLUMN blocked_code TEXT;
   ALTER TABLE approvals ADD COLUMN blocked_message TEXT;
   ALTER TABLE approvals ADD COLUMN blocked_at INTEGER;`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;
