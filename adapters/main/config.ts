import { isOtlpUrl, isSyslogUrl } from '../audit-stream/sink-urls.js';
import path from 'node:path';
import { z } from 'zod';
import { addedChainProblem, CHAIN_NAME, type AddedChain } from '../chain/chains.js';
import { rpcUrlsProblem, splitRpcUrls } from '../chain/rpc-urls.js';
import { parseTrustedProxies } from '../http/caller.js';
import { DEFAULT_ARGS_BOUNDS } from '../http/json-shape.js';
import { DEFAULT_WAITING_PER_CONNECTION } from '../persistence/postgres/postgres.pool-bounds.js';
import { isSchemaName, SCHEMA_NAME_RULE } from '../persistence/postgres/postgres.schema-name.js';
import { trueOrFalseVariable, wholeNumberVariable as integer } from '../environment-variables.js';
import { KeyStoreSettingsError } from '../keystore/key-store-module.js';
import { REGISTERED_KEY_STORES } from '../keystore/registered-key-stores.js';
import { ConfigFileProblem, withConfigFile, withSources, type ConfigEnvironment } from './config-file.js';
import {
  authSecretSetting,
  CHECKPOINT_INTERVAL_LIMITS_MS,
  CONSOLE_CHALLENGE_LIMITS,
  DEFAULT_OIDC_OPERATOR_CLAIM,
  GOVERNANCE_PIN_HASH,
  normalisedPublicUrl,
  OIDC_CLAIM_NAME,
  oidcIssuerProblem,
  OUTBOUND_TIMEOUT_LIMITS,
  PURGE_INTERVAL_LIMITS_MS,
  publicUrlProblem,
  WEBHOOK_POLL_LIMITS,
} from './setting-rules.js';
import { DEFAULT_CHALLENGE_BOUNDS, type ChallengeBounds } from '../../src/application/console/sign-in-challenges.js';
import { RPC_CHAINS } from '../../src/domain/chains.js';


/** `VAULT_RPC_URL_BSC_TESTNET` for `bsc-testnet`: chain upper-cased, `-` as `_`. */
export const rpcUrlVariable = (chain: string): string => `VAULT_RPC_URL_${chain.toUpperCase().replace(/-/g, '_')}`;

export type { AddedChain } from '../chain/chains.js';

/** The names VAULT_KEYSTORE accepts: the registered key stores' (adapters/keystore/registered-key-stores.ts). */
export const KEYSTORES: readonly string[] = REGISTERED_KEY_STORES.map((store) => store.name);

/** `local (docs/keystores.md#local-default), pkcs11 (docs/keystores.md#pkcs11), …`: each store and its section of the docs, for `--help`. */
export function keyStoresHelp(): string {
  return REGISTERED_KEY_STORES.map((store) => `${store.name} (docs/keystores.md#${store.docsAnchor})`).join(', ');
}

/**
 * Everything the service reads from its environment (and configuration file), validated once at start:
 * the type of what loadConfig answers, inferred from it (each field's doc is where it is read, below).
 */
export type AppConfig = ReturnType<typeof parseConfig>;

/** VAULT_UNSEAL_TIMEOUT_SECONDS' default: shares submitted are forgotten ten minutes after the first. */
export const DEFAULT_UNSEAL_TIMEOUT_SECONDS = 600;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The service's own variables; each key store brings its own (`environment` of its module), merged below. */
const coreEnvironment = {
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: integer(0, 65535).default(8080),
  VAULT_DATA_DIR: z.string().min(1).default('./data'),
  VAULT_CHAINS: z.string().optional(),
  VAULT_CONFIG_FILE: z.string().optional(),
  VAULT_GOVERNANCE_PINS: z.string().optional(),
  VAULT_PUBLIC_URL: z.string().optional(),
  VAULT_CONSOLE_CHALLENGES_PER_CLIENT: integer(CONSOLE_CHALLENGE_LIMITS.perClient.min, CONSOLE_CHALLENGE_LIMITS.perClient.max).default(DEFAULT_CHALLENGE_BOUNDS.perClient),
  VAULT_CONSOLE_CHALLENGES: integer(CONSOLE_CHALLENGE_LIMITS.outstanding.min, CONSOLE_CHALLENGE_LIMITS.outstanding.max).default(DEFAULT_CHALLENGE_BOUNDS.outstanding),
  VAULT_AUTH_SECRET_KEY: authSecretSetting.optional(),
  VAULT_KEYSTORE: z.enum(KEYSTORES as [string, ...string[]]).default(KEYSTORES[0]!),
  VAULT_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .refine((v) => URL.canParse(v), 'must be a postgres:// URL')
    .optional(),
  VAULT_DATABASE_POOL_SIZE: integer(1, 1000).default(10),
  VAULT_DATABASE_CONNECT_TIMEOUT_MS: integer(100, 600_000).default(5000),
  VAULT_DATABASE_MAX_WAITING: integer(0, 1_000_000).optional(),
  VAULT_DATABASE_QUERY_TIMEOUT_MS: integer(100, 600_000).default(10_000),
  VAULT_DATABASE_SCHEMA: z.string().refine(isSchemaName, SCHEMA_NAME_RULE).optional(),
  VAULT_RATE_LIMIT_PER_MINUTE: integer(1, 1_000_000_000).optional(),
  VAULT_RATE_LIMIT_STORE_TIMEOUT_MS: integer(10, 60_000).default(250),
  VAULT_RATE_LIMIT_STORE: z.enum(['process', 'database', 'redis']).optional(),
  VAULT_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .refine((v) => URL.canParse(v), 'must be a redis:// or rediss:// URL')
    .optional(),
  VAULT_WORKERS: integer(1, 256).default(1),
  VAULT_ADDRESS_RATE_LIMIT_PER_MINUTE: integer(1, 1_000_000_000).optional(),
  VAULT_TRUSTED_PROXIES: z.string().optional(),
  VAULT_AUTH_REFUSED_SUMMARY_SECONDS: integer(1, 86_400).default(60),
  VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS: integer(0, CHECKPOINT_INTERVAL_LIMITS_MS.max / 1000)
    .refine((n) => n === 0 || n >= CHECKPOINT_INTERVAL_LIMITS_MS.min / 1000, `must be 0 (off) or at least ${CHECKPOINT_INTERVAL_LIMITS_MS.min / 1000}`)
    .default(3600),
  VAULT_MAX_CONNECTIONS: integer(1, 1_000_000).default(1024),
  VAULT_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  VAULT_OUTBOUND_TIMEOUT_MS: integer(OUTBOUND_TIMEOUT_LIMITS.min, OUTBOUND_TIMEOUT_LIMITS.max).default(5000),
  VAULT_ARGS_MAX_DEPTH: integer(2, 64).default(DEFAULT_ARGS_BOUNDS.maxDepth),
  VAULT_ARGS_MAX_ARRAY_LENGTH: integer(1, 1_000_000).default(DEFAULT_ARGS_BOUNDS.maxArrayLength),
  VAULT_ARGS_MAX_STRING_LENGTH: integer(64, 64 * 1024 * 1024).default(DEFAULT_ARGS_BOUNDS.maxStringLength),
  VAULT_ARGS_MAX_VALUES: integer(1, 10_000_000).default(DEFAULT_ARGS_BOUNDS.maxValues),
  VAULT_MAX_HEADER_BYTES: integer(1024, 1024 * 1024).default(16_384),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  VAULT_BODY_LIMIT_BYTES: integer(1024, 64 * 1024 * 1024).default(1024 * 1024),
  VAULT_API_DOCS: trueOrFalseVariable.default('true'),
  VAULT_SIGNING_THREAD: trueOrFalseVariable.optional(),
  VAULT_PURGE_INTERVAL_SECONDS: integer(PURGE_INTERVAL_LIMITS_MS.min / 1000, PURGE_INTERVAL_LIMITS_MS.max / 1000).default(60),
  VAULT_WEBHOOK_SIGNING_KEY: z.string().min(1).optional(),
  VAULT_WEBHOOK_POLL_MS: integer(WEBHOOK_POLL_LIMITS.min, WEBHOOK_POLL_LIMITS.max).default(1000),
  VAULT_VERSION: z.string().min(1).optional(),
  VAULT_RPC_ALLOW_HTTP: trueOrFalseVariable.default('false'),
  VAULT_SEAL: z.enum(['shamir']).optional(),
  VAULT_UNSEAL_TIMEOUT_SECONDS: integer(10, 86_400).optional(),
  VAULT_AUDIT_SYSLOG_URL: z.string().refine(isSyslogUrl, 'must be udp://host:port or tcp://host:port').optional(),
  VAULT_AUDIT_OTLP_URL: z.string().refine(isOtlpUrl, 'must be an http(s) URL without credentials (http://collector:4318/v1/logs)').optional(),
  VAULT_AUDIT_REQUIRE_SINK: trueOrFalseVariable.default('false'),
  VAULT_OIDC_ISSUER: z
    .string()
    .superRefine((text, ctx) => {
      const problem = oidcIssuerProblem(text);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  VAULT_OIDC_CLIENT_ID: z.string().min(1).max(1000).optional(),
  VAULT_OIDC_CLIENT_SECRET: z.string().min(1).max(10_000).optional(),
  VAULT_OIDC_OPERATOR_CLAIM: z.string().regex(OIDC_CLAIM_NAME, 'must be a claim name (email, preferred_username, upn, …)').optional(),
};

/**
 * The service's variables and every registered store's, one schema. A name is one store's or the
 * service's, never two: a store declaring a name already taken stops the module from loading.
 */
const schema = z.object({ ...coreEnvironment, ...keyStoreEnvironments() });

/**
 * Every variable the service reads, by name (`VAULT_RPC_URL_<CHAIN>` stands for one per chain): the
 * README's and docs/configuration.md's tables are held equal to it (test/docs/configuration-table.test.ts).
 */
export const CONFIGURATION_VARIABLES: readonly string[] = [...Object.keys(schema.shape), rpcUrlVariable('<CHAIN>')];

function keyStoreEnvironments(): z.ZodRawShape {
  const merged: Record<string, z.core.$ZodType> = {};
  const ownerOf = new Map<string, string>(Object.keys(coreEnvironment).map((name) => [name, 'the service']));
  for (const store of REGISTERED_KEY_STORES) {
    for (const [name, check] of Object.entries(store.environment)) {
      const owner = ownerOf.get(name);
      if (owner !== undefined) throw new Error(`key store ${store.name}: ${name} is already a variable of ${owner === 'the service' ? owner : `key store ${owner}`}`);
      ownerOf.set(name, store.name);
      merged[name] = check;
    }
  }
  return merged;
}

/**
 * Parses the environment, over the configuration file when one is named (`configFile`, else
 * VAULT_CONFIG_FILE; the environment wins over the file); a bad value throws ConfigError naming the
 * variable and, when a file is in play, where the value came from.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd(), options: { readonly configFile?: string } = {}): AppConfig {
  let source: ConfigEnvironment;
  try {
    source = withConfigFile(env, cwd, (name) => name in schema.shape, options.configFile);
  } catch (error) {
    if (error instanceof ConfigFileProblem) throw new ConfigError(`configuration file ${error.message}`);
    throw error;
  }
  try {
    return parseConfig(source.env, cwd);
  } catch (error) {
    if (error instanceof ConfigError && source.file !== undefined) throw new ConfigError(withSources(error.message, source.sourceOf));
    throw error;
  }
}

function parseConfig(env: Record<string, string | undefined>, cwd: string) {
  // An empty variable means "unset": `VAULT_AUTH_SECRET_KEY= npm start` must not configure an empty secret.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || '(environment)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data as z.infer<z.ZodObject<typeof coreEnvironment>> & Record<string, unknown>;
  if (e.VAULT_DATABASE_SCHEMA !== undefined && e.VAULT_DATABASE_URL === undefined) {
    // Silently ignored, it would let the operator believe the data lands in that PostgreSQL schema.
    throw new ConfigError('VAULT_DATABASE_SCHEMA: only with VAULT_DATABASE_URL (the embedded SQLite database has no schemas)');
  }
  const rateLimitStore = e.VAULT_RATE_LIMIT_STORE ?? (e.VAULT_REDIS_URL !== undefined ? 'redis' : e.VAULT_DATABASE_URL !== undefined ? 'database' : 'process');
  if (rateLimitStore === 'database' && e.VAULT_DATABASE_URL === undefined) {
    throw new ConfigError('VAULT_RATE_LIMIT_STORE: database needs VAULT_DATABASE_URL (the embedded SQLite database counts in process)');
  }
  if (rateLimitStore === 'redis' && e.VAULT_REDIS_URL === undefined) throw new ConfigError('VAULT_RATE_LIMIT_STORE: redis needs VAULT_REDIS_URL');
  if (rateLimitStore !== 'redis' && e.VAULT_REDIS_URL !== undefined) {
    // Silently ignored, it would let the operator believe the limit is shared through Redis.
    throw new ConfigError(`VAULT_REDIS_URL: only with VAULT_RATE_LIMIT_STORE=redis (it is ${rateLimitStore})`);
  }
  const keyStoreSettings = keyStoreSettingsOf(e, e.VAULT_KEYSTORE);
  const seal = sealOf(e);
  let trustedProxies: string[] = [];
  try {
    trustedProxies = parseTrustedProxies(e.VAULT_TRUSTED_PROXIES ?? '');
  } catch (error) {
    throw new ConfigError(`VAULT_TRUSTED_PROXIES: ${(error as Error).message}`);
  }
  const addedChains = parseAddedChains(e.VAULT_CHAINS);
  const rpcUrls = rpcUrlsOf(present, addedChains, e.VAULT_RPC_ALLOW_HTTP === 'true');
  return {
    host: e.HOST,
    port: e.PORT,
    /** Absolute path of the data directory (SQLite file, local key files, master key). */
    dataDir: path.resolve(cwd, e.VAULT_DATA_DIR),
    /**
     * VAULT_MASTER_KEY (a variable of the local store, adapters/keystore/local-file/module.ts): 64 hex
     * characters, or undefined to use (and on first start create) `<dataDir>/master.key`. Here too because
     * the audit checkpoint key derives from it and `keys rotate-master` re-wraps under it.
     */
    masterKeyHex: typeof e.VAULT_MASTER_KEY === 'string' ? e.VAULT_MASTER_KEY : undefined,
    /** Shared secret for X-Vault-Auth-Signature; undefined means the header is refused. */
    authSecret: e.VAULT_AUTH_SECRET_KEY,
    /**
     * RPC URLs by chain name, for the interface's chains and the added ones (`VAULT_RPC_URL_<CHAIN>`,
     * comma-separated): several must all agree on every value read.
     */
    rpcUrls,
    /** VAULT_RPC_ALLOW_HTTP: http:// RPC URLs off loopback were accepted (the operator's explicit choice). */
    rpcAllowHttp: e.VAULT_RPC_ALLOW_HTTP === 'true',
    /** Chains beyond the interface's (VAULT_CHAINS); sign requests and policies accept their names. */
    addedChains,
    /** VAULT_GOVERNANCE_PINS: each governed vault's genesis hash (docs/governance.md), the root of trust outside the database. */
    governancePins: parseGovernancePins(e.VAULT_GOVERNANCE_PINS),
    /**
     * VAULT_PUBLIC_URL: where people reach this vault (`https://vault.example`, `http://localhost:8080`), the
     * approvers' console's origin and WebAuthn relying party (docs/console.md); absent: no console.
     */
    ...(e.VAULT_PUBLIC_URL === undefined || e.VAULT_PUBLIC_URL === '' ? {} : { publicUrl: parsePublicUrl(e.VAULT_PUBLIC_URL) }),
    /**
     * VAULT_CONSOLE_CHALLENGES_PER_CLIENT and VAULT_CONSOLE_CHALLENGES: the console's challenges one client
     * may hold, and all may (docs/console.md, "Sign-in challenges").
     */
    consoleChallenges: { perClient: e.VAULT_CONSOLE_CHALLENGES_PER_CLIENT, outstanding: e.VAULT_CONSOLE_CHALLENGES },
    /** The key store new wallets go to (VAULT_KEYSTORE): the name of a registered store. */
    keyStore: e.VAULT_KEYSTORE,
    /**
     * The settings of every configured key store by name, in the order they are registered (each store's
     * `settings`, adapters/keystore/<folder>/module.ts). `local` is always there; another store is when
     * VAULT_KEYSTORE names it or one of its own variables is set: a configured store keeps serving its
     * wallets after VAULT_KEYSTORE moves on.
     */
    keyStoreSettings,
    /** PostgreSQL shared by every instance (VAULT_DATABASE_URL), or undefined for SQLite in the data directory. */
    database:
      e.VAULT_DATABASE_URL === undefined
        ? undefined
        : {
            /** `postgres://user:password@host:port/database`; never logged (it may carry a password). */
            url: e.VAULT_DATABASE_URL,
            /** Connections each instance keeps at most (VAULT_DATABASE_POOL_SIZE). */
            poolSize: e.VAULT_DATABASE_POOL_SIZE,
            /** Bound on opening a connection or waiting for a free one (VAULT_DATABASE_CONNECT_TIMEOUT_MS). */
            connectTimeoutMs: e.VAULT_DATABASE_CONNECT_TIMEOUT_MS,
            /** Requests that may wait for a connection while all are in use (VAULT_DATABASE_MAX_WAITING, default 4 × pool size). */
            maxWaiting: e.VAULT_DATABASE_MAX_WAITING ?? DEFAULT_WAITING_PER_CONNECTION * e.VAULT_DATABASE_POOL_SIZE,
            /** Bound on every statement, enforced by the server and the client (VAULT_DATABASE_QUERY_TIMEOUT_MS). */
            queryTimeoutMs: e.VAULT_DATABASE_QUERY_TIMEOUT_MS,
            /** The schema of the vault's tables, created if missing (VAULT_DATABASE_SCHEMA); absent: the connection's current one. */
            schema: e.VAULT_DATABASE_SCHEMA,
          },
    /** Requests per minute per API key, per instance; undefined: no limit. */
    rateLimitPerMinute: e.VAULT_RATE_LIMIT_PER_MINUTE,
    /** Longest wait for one count by the shared rate-limit store before it is skipped (VAULT_RATE_LIMIT_STORE_TIMEOUT_MS). */
    rateLimitStoreTimeoutMs: e.VAULT_RATE_LIMIT_STORE_TIMEOUT_MS,
    /**
     * Where the per-API-key limit is counted (VAULT_RATE_LIMIT_STORE): the PostgreSQL database or Redis,
     * shared by every instance, or each process in memory. Default: redis with VAULT_REDIS_URL, database
     * with VAULT_DATABASE_URL, else process.
     */
    rateLimitStore,
    /** VAULT_REDIS_URL (`redis://` or `rediss://`; may carry a password: never in messages). */
    redisUrl: e.VAULT_REDIS_URL,
    /** Requests per minute per client address, taken before authentication, per process; undefined: no limit. */
    addressRateLimitPerMinute: e.VAULT_ADDRESS_RATE_LIMIT_PER_MINUTE,
    /** Proxies (addresses, CIDR ranges) whose X-Forwarded-For names the client; empty: the socket's peer counts. */
    trustedProxies,
    /** How often refused authentications are summarised into the audit trail (one record per source). */
    authRefusedSummaryMs: e.VAULT_AUTH_REFUSED_SUMMARY_SECONDS * 1000,
    /** Open connections per process; past it new connections are closed at once. */
    maxConnections: e.VAULT_MAX_CONNECTIONS,
    /** VAULT_METRICS_TOKEN: guards /metrics and /readyz's details; undefined: /metrics is open. */
    metricsToken: e.VAULT_METRICS_TOKEN,
    /** Bound on every outbound call (chain RPC, AWS KMS, Vault) and on each readiness check. */
    outboundTimeoutMs: e.VAULT_OUTBOUND_TIMEOUT_MS,
    /** Shape limits on Sign's `args` (and `abi`): nesting depth, array length, string length, values in all. */
    argsBounds: {
      maxDepth: e.VAULT_ARGS_MAX_DEPTH,
      maxArrayLength: e.VAULT_ARGS_MAX_ARRAY_LENGTH,
      maxStringLength: e.VAULT_ARGS_MAX_STRING_LENGTH,
      maxValues: e.VAULT_ARGS_MAX_VALUES,
    },
    /** Largest request head (request line and headers) node accepts; 431 above it. */
    maxHeaderBytes: e.VAULT_MAX_HEADER_BYTES,
    workers: e.VAULT_WORKERS,
    logLevel: e.LOG_LEVEL,
    bodyLimitBytes: e.VAULT_BODY_LIMIT_BYTES,
    /** Swagger UI at `/docs` (VAULT_API_DOCS, default on); `/openapi.json` is served regardless. */
    apiDocs: e.VAULT_API_DOCS === 'true',
    /** The local and vault-transit key stores sign on a thread of its own (VAULT_SIGNING_THREAD; default: with more than one CPU). */
    signingThread: e.VAULT_SIGNING_THREAD === undefined ? undefined : e.VAULT_SIGNING_THREAD === 'true',
    /** How often the expiry purge runs (it also runs at start). */
    purgeIntervalMs: e.VAULT_PURGE_INTERVAL_SECONDS * 1000,
    /** VAULT_WEBHOOK_SIGNING_KEY: a PKCS#8 PEM file of an Ed25519 key; undefined: the key kept in the database. */
    webhookSigningKeyFile: e.VAULT_WEBHOOK_SIGNING_KEY === undefined ? undefined : path.resolve(cwd, e.VAULT_WEBHOOK_SIGNING_KEY),
    /** VAULT_WEBHOOK_POLL_MS: how often the webhook outbox is read. */
    webhookPollMs: e.VAULT_WEBHOOK_POLL_MS,
    /** VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS: how often the signed audit checkpoint is written; 0: never (by the server). */
    auditCheckpointIntervalMs: e.VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS * 1000,
    /** Reported by the status endpoint; defaults to the git commit of the checkout, else the package version. */
    version: e.VAULT_VERSION,
    /**
     * VAULT_SEAL=shamir: the server starts sealed (no master key read) and custodians unseal it with their
     * shares (docs/keystores.md#sealed-start); `unsealTimeoutMs` is VAULT_UNSEAL_TIMEOUT_SECONDS. Undefined: no seal.
     */
    seal,
    ...auditStreamOf(e),
    ...oidcOf(e),
  };
}

/** The operators' OpenID Connect sign-in (docs/operators.md): the issuer and client together, or none of its variables. */
function oidcOf(e: { VAULT_OIDC_ISSUER?: string; VAULT_OIDC_CLIENT_ID?: string; VAULT_OIDC_CLIENT_SECRET?: string; VAULT_OIDC_OPERATOR_CLAIM?: string }): {
  /** VAULT_OIDC_ISSUER, VAULT_OIDC_CLIENT_ID, VAULT_OIDC_CLIENT_SECRET, VAULT_OIDC_OPERATOR_CLAIM; absent: only operator credentials (`wvop_`). */
  readonly oidc?: { readonly issuer: string; readonly clientId: string; readonly clientSecret?: string; readonly operatorClaim: string };
} {
  if (e.VAULT_OIDC_ISSUER === undefined) {
    // Silently ignored, any of them would let the operator believe sign-in is on.
    const stray = (['VAULT_OIDC_CLIENT_ID', 'VAULT_OIDC_CLIENT_SECRET', 'VAULT_OIDC_OPERATOR_CLAIM'] as const).find((name) => e[name] !== undefined);
    if (stray !== undefined) throw new ConfigError(`${stray}: only with VAULT_OIDC_ISSUER (the identity provider)`);
    return {};
  }
  if (e.VAULT_OIDC_CLIENT_ID === undefined) throw new ConfigError('VAULT_OIDC_CLIENT_ID: needed with VAULT_OIDC_ISSUER (the client registered for the vault at the identity provider)');
  return {
    oidc: {
      issuer: e.VAULT_OIDC_ISSUER,
      clientId: e.VAULT_OIDC_CLIENT_ID,
      ...(e.VAULT_OIDC_CLIENT_SECRET === undefined ? {} : { clientSecret: e.VAULT_OIDC_CLIENT_SECRET }),
      operatorClaim: e.VAULT_OIDC_OPERATOR_CLAIM ?? DEFAULT_OIDC_OPERATOR_CLAIM,
    },
  };
}

/** The audit sinks' variables; VAULT_AUDIT_REQUIRE_SINK without a sink would refuse every write for ever. */
function auditStreamOf(e: { VAULT_AUDIT_SYSLOG_URL?: string; VAULT_AUDIT_OTLP_URL?: string; VAULT_AUDIT_REQUIRE_SINK: string }): {
  /** VAULT_AUDIT_SYSLOG_URL, VAULT_AUDIT_OTLP_URL, VAULT_AUDIT_REQUIRE_SINK (docs/operations.md "Audit streaming"); absent: no sink. */
  readonly auditStream?: { readonly syslogUrl?: string; readonly otlpUrl?: string; readonly requireSink: boolean };
} {
  const requireSink = e.VAULT_AUDIT_REQUIRE_SINK === 'true';
  if (e.VAULT_AUDIT_SYSLOG_URL === undefined && e.VAULT_AUDIT_OTLP_URL === undefined) {
    if (requireSink) throw new ConfigError('VAULT_AUDIT_REQUIRE_SINK: needs a sink (VAULT_AUDIT_SYSLOG_URL or VAULT_AUDIT_OTLP_URL)');
    return {};
  }
  return { auditStream: { syslogUrl: e.VAULT_AUDIT_SYSLOG_URL, otlpUrl: e.VAULT_AUDIT_OTLP_URL, requireSink } };
}


/** VAULT_SEAL and what it cannot be combined with: the key in the environment, or workers that would each need unsealing. */
function sealOf(e: Record<string, unknown>): { readonly kind: 'shamir'; readonly unsealTimeoutMs: number } | undefined {
  if (e.VAULT_SEAL === undefined) {
    if (e.VAULT_UNSEAL_TIMEOUT_SECONDS !== undefined) throw new ConfigError('VAULT_UNSEAL_TIMEOUT_SECONDS: only with VAULT_SEAL=shamir');
    return undefined;
  }
  if (e.VAULT_MASTER_KEY !== undefined) {
    throw new ConfigError('VAULT_MASTER_KEY: not with VAULT_SEAL=shamir (the seal keeps the master key out of the environment and off the disk; custodians unseal with their shares)');
  }
  if (e.VAULT_WORKERS !== 1) {
    throw new ConfigError('VAULT_WORKERS: must be 1 with VAULT_SEAL=shamir (each process holds the unsealed key in its own memory; run several instances instead, each unsealed)');
  }
  return { kind: 'shamir', unsealTimeoutMs: ((e.VAULT_UNSEAL_TIMEOUT_SECONDS as number | undefined) ?? DEFAULT_UNSEAL_TIMEOUT_SECONDS) * 1000 };
}

/**
 * Each registered store's settings from its own variables (set ones only), in registration order; a
 * store that says it is not configured is left out. A store's refusal (KeyStoreSettingsError) is a
 * ConfigError with its message.
 */
function keyStoreSettingsOf(env: Readonly<Record<string, unknown>>, selected: string): Map<string, unknown> {
  const configured = new Map<string, unknown>();
  for (const store of REGISTERED_KEY_STORES) {
    const own = Object.fromEntries(Object.keys(store.environment).flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
    let settings: unknown;
    try {
      settings = store.settings(own, store.name === selected);
    } catch (error) {
      throw error instanceof KeyStoreSettingsError ? new ConfigError(error.message) : error;
    }
    if (settings !== undefined) configured.set(store.name, settings);
  }
  return configured;
}

/** `treasury:0x<64 hex>,ops:0x<64 hex>`: the genesis hash `wallet-vault governance set` printed for each vault. */
export function parseGovernancePins(value: string | undefined): ReadonlyMap<string, string> {
  const pins = new Map<string, string>();
  for (const entry of (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const at = entry.lastIndexOf(':');
    const vault = entry.slice(0, at);
    const hash = entry.slice(at + 1);
    if (at <= 0 || !GOVERNANCE_PIN_HASH.test(hash)) {
      throw new ConfigError(`VAULT_GOVERNANCE_PINS: "${entry.slice(0, 100)}" must be vault-id:0x<64 hex>, as \`wallet-vault governance set\` printed it`);
    }
    if (pins.has(vault)) throw new ConfigError(`VAULT_GOVERNANCE_PINS: vault ${vault} is pinned twice`);
    pins.set(vault, hash.toLowerCase());
  }
  return pins;
}

/** `arbitrum:42161,base:8453`: names new to the service, ids no other chain has. */
function parseAddedChains(value: string | undefined): AddedChain[] {
  const added: AddedChain[] = [];
  for (const entry of (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const match = /^([^:]+):(\d{1,20})$/.exec(entry);
    if (!match || !CHAIN_NAME.test(match[1]!)) {
      throw new ConfigError(`VAULT_CHAINS: "${entry}" must be name:chainId, the name lower-case letters, digits and - (e.g. arbitrum:42161)`);
    }
    const chain = { name: match[1]!, chainId: BigInt(match[2]!) };
    const problem = addedChainProblem(chain, added);
    if (problem) throw new ConfigError(`VAULT_CHAINS: ${problem}`);
    added.push(chain);
  }
  return added;
}

/**
 * The RPC URLs of every chain that has any. A VAULT_RPC_URL_ variable naming no chain stops the start:
 * `VAULT_RPC_URL_MAINNET` silently ignored would leave an operator believing contracts are looked up.
 * So does a plain-http URL off loopback without VAULT_RPC_ALLOW_HTTP (see rpcUrlsProblem).
 */
function rpcUrlsOf(env: Record<string, string | undefined>, added: readonly AddedChain[], allowHttp: boolean): Record<string, string[]> {
  const names = [...RPC_CHAINS, ...added.map((c) => c.name)];
  const byVariable = new Map(names.map((name) => [rpcUrlVariable(name), name]));
  const rpcUrls: Record<string, string[]> = {};
  for (const [variable, value] of Object.entries(env)) {
    if (!variable.startsWith('VAULT_RPC_URL_') || value === undefined) continue;
    const chain = byVariable.get(variable);
    if (chain === undefined) {
      const suggested = variable.slice('VAULT_RPC_URL_'.length).toLowerCase().replace(/_/g, '-');
      // `local` is a chain already, one that never has an RPC: adding it again with VAULT_CHAINS is refused.
      const hint =
        suggested === 'local'
          ? 'the chain local never has an RPC (its uniq and signer come from the request); to sign for a local node with an RPC, add it under another name, e.g. VAULT_CHAINS=anvil:31337 and VAULT_RPC_URL_ANVIL'
          : `to add an EVM chain, set VAULT_CHAINS=${suggested}:<chain id>`;
      throw new ConfigError(`${variable}: names no chain with an RPC (chains: ${names.join(', ')}); ${hint}`);
    }
    const urls = splitRpcUrls(value);
    const problem = rpcUrlsProblem(urls, allowHttp);
    if (problem !== null) throw new ConfigError(`${variable}: ${problem}`);
    rpcUrls[chain] = urls;
  }
  return rpcUrls;
}

/** VAULT_PUBLIC_URL, by the rule createVault's `publicUrl` follows too (setting-rules.ts). */
export function parsePublicUrl(text: string): string {
  const problem = publicUrlProblem(text);
  if (problem !== null) throw new ConfigError(`VAULT_PUBLIC_URL: ${problem}`);
  return normalisedPublicUrl(text);
}
