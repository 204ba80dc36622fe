import type { SimulationObserver } from '../../src/application/signing/transaction-simulation.js';
import type { Container } from 'inversify';
import { z } from 'zod';
import type { PurgeRunReport } from '../../src/application/shared/purge-run-report.js';
import type { RefusedAuthObserver } from '../../src/application/access/refused-auth-summary.js';
import type { InvalidVoteObserver } from '../../src/application/approvals/vote-on-approval.use-case.js';
import type { ChainReader } from '../../src/ports/chain-reader.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { KeyStore } from '../../src/ports/key-store.port.js';
import type { Persistence } from '../../src/ports/persistence.port.js';
import { addedChainProblem, type AddedChain } from '../chain/chains.js';
import { rpcUrlList, rpcUrlsProblem, type RpcUrls } from '../chain/rpc-urls.js';
import { webhookSigningKey } from '../webhooks/webhook-signing-key.js';
import { RPC_CHAINS } from '../../src/domain/chains.js';
import { PrometheusMetrics } from '../metrics/prometheus.metrics.js';
import type { WebhookMetrics } from '../webhooks/webhook-dispatcher.js';
import { isOtlpUrl, isSyslogUrl } from '../audit-stream/sink-urls.js';
import type { AuditStreamOptions } from './audit-stream.js';
import type { VaultLogger } from './vault-logger.js';
import {
  authSecretSetting,
  CHECKPOINT_INTERVAL_LIMITS_MS,
  CONSOLE_CHALLENGE_LIMITS,
  GOVERNANCE_PIN_HASH,
  normalisedPublicUrl,
  OUTBOUND_TIMEOUT_LIMITS,
  PURGE_INTERVAL_LIMITS_MS,
  publicUrlProblem,
  oidcIssuerProblem,
  OIDC_CLAIM_NAME,
  WEBHOOK_POLL_LIMITS,
} from './setting-rules.js';

/** Named here too: the library's entry (lib/index.ts) and createVault take it with the options. */
export type { VaultLogger };

/** What `createVault` takes; every field is checked when it is called, never later. */
export interface VaultOptions {
  /** The opened database (`wallet-vault/persistence/sqlite`, `…/postgres`); `close()` closes it. */
  readonly persistence: Persistence;
  /**
   * The key stores (`wallet-vault/keystores/*` or your own `KeyStore`), distinct names. Each is pinged
   * before createVault resolves and closed by `close()`. Omit for a vault that never touches keys
   * (operator tools): wallet creation and signing then fail.
   */
  readonly keyStores?: readonly KeyStore[];
  /** Name of the store new wallets go to; default: the first of `keyStores`. */
  readonly defaultKeyStore?: string;
  /** Shared secret for `X-Vault-Auth-Signature` (at least 32 characters); absent: the header is refused. */
  readonly authSecret?: string;
  /**
   * Each governed vault's genesis hash (VAULT_GOVERNANCE_PINS, docs/governance.md): a pinned vault whose
   * genesis in the database differs, or is missing, signs nothing (GOVERNANCE_UNVERIFIED).
   */
  readonly governancePins?: ReadonlyMap<string, string>;
  /**
   * VAULT_PUBLIC_URL: the approvers' console's origin and WebAuthn relying party (docs/console.md): https,
   * or http on loopback only, no query, fragment or credentials; kept without its trailing slashes.
   * Absent: `/console` answers 503 CONSOLE_UNAVAILABLE.
   */
  readonly publicUrl?: string;
  /**
   * The operators' sign-in through the company's OpenID Connect provider (VAULT_OIDC_*, docs/operators.md):
   * `issuer` (https, or http on loopback), the vault's `clientId` and `clientSecret` (absent: a public client,
   * PKCE only), `operatorClaim` (default `email`), the claim whose value, lower-cased, is an operator's name.
   * The browser sign-in (`/api/v1/admin/sign-in`) also needs `publicUrl`. Absent: operator credentials only.
   */
  readonly oidc?: { readonly issuer: string; readonly clientId: string; readonly clientSecret?: string; readonly operatorClaim?: string };
  /**
   * The console's challenges (sign-in and enrolment) one client may hold, `perClient` (default 8: an IPv6
   * client counts per /48), and all clients together, `outstanding` (default 10 000, the second half one per
   * client): docs/console.md, "Sign-in challenges".
   */
  readonly consoleChallenges?: { readonly perClient?: number; readonly outstanding?: number };
  /**
   * JSON-RPC URL per chain for Sign's on-chain reads (`ethereum`, `sepolia`, `bsc`, …, and those of
   * `chains`), or several per chain (an array): each is asked, and they must agree on uniq and signer.
   * Plain http is refused off loopback unless `rpcAllowHttp`.
   */
  readonly rpcUrls?: Readonly<Record<string, RpcUrls>>;
  /**
   * Accept `http://` RPC URLs on any host (default false: https, or http on 127.0.0.0/8, ::1, localhost).
   * Whoever can rewrite an RPC's answers chooses the uniq an unpinned contract signs with.
   */
  readonly rpcAllowHttp?: boolean;
  /**
   * EVM chains beyond the built-in ones (`[{ name: 'arbitrum', chainId: 42161n }]`): Sign and sign
   * policies accept their names; with an `rpcUrls` entry their RPC's chain id is checked as for the others.
   */
  readonly chains?: readonly AddedChain[];
  /** Your own chain reader instead of the JSON-RPC one built from `rpcUrls`. */
  readonly chainReader?: ChainReader;
  /** Bound on every chain RPC call and on each readiness check (ms, default 5000). */
  readonly outboundTimeoutMs?: number;
  /** Reported by `GET …/status` (default `wallet-vault`'s package version is up to the caller: `unknown`). */
  readonly version?: string;
  /** The vault's notion of now (tests move it). Default: the system clock. */
  readonly clock?: Clock;
  /**
   * The expiry purge, idempotency clean-up and orphan-key sweep: every `intervalMs` (default 60 000) and
   * once at start; `false` runs none (call `vault.runJobsOnce()` yourself).
   */
  readonly jobs?: false | { readonly intervalMs?: number };
  /** Default: silent. */
  readonly logger?: VaultLogger;
  /** Told the outcome of each background run (Prometheus in the standalone server). */
  readonly jobMetrics?: { observePurge(report: PurgeRunReport | 'error' | 'skipped'): void };
  /**
   * Webhook delivery (docs/webhooks.md): with an object, this vault delivers the events of every endpoint
   * (`wallet-vault webhooks add`), polling the outbox every `pollIntervalMs` (default 1000) under the job
   * lock, unless `jobs` is false. `signingKey` is an Ed25519 private key as PKCS#8 PEM text; without it the
   * key generated once and kept in the database signs. Absent or false: nothing is delivered by this
   * vault (the public key route still answers, with `signingKey` when given).
   */
  readonly webhooks?: false | { readonly signingKey?: string; readonly pollIntervalMs?: number };
  /** Told of each webhook delivery attempt and of the backlog (Prometheus in the standalone server). */
  readonly webhookMetrics?: WebhookMetrics;
  /**
   * Audit streaming (docs/operations.md "Audit streaming"): each record, as it is written, to syslog
   * and/or OTLP, under the job lock; with `jobs` false the sinks are only probed (for `requireSink`, which
   * refuses writes, 503 AUDIT_SINK_UNAVAILABLE, while none accepts records). Absent: nothing is streamed.
   */
  readonly auditStream?: AuditStreamOptions;
  /**
   * Signed audit checkpoints (docs/security.md, "Audit checkpoints"): `key` is a secret of at least 32
   * bytes kept outside the database (the standalone server passes its master key), from which the
   * Ed25519 checkpoint key is derived (HKDF-SHA256, info `wallet-vault/audit-checkpoint/v1`). With the
   * background jobs, the chain's head is signed and recorded (`audit.checkpoint`) every `intervalMs`
   * (default 3 600 000); the public key is served at `GET /.well-known/wallet-vault-audit-checkpoint-keys`.
   */
  readonly auditCheckpoints?: false | { readonly key: Uint8Array; readonly intervalMs?: number };
  /**
   * Called with the inversify container after every module is loaded and before any use case is
   * built: rebind a port here (`c.rebind(TOKENS.CLOCK).toConstantValue(myClock)`).
   */
  readonly configure?: (container: Container) => void;
  /** Told of each refused authentication (reason, client address), besides the audit summary. */
  readonly authRefused?: RefusedAuthObserver;
  /** Told of votes a release found without a valid signature (a row no approver signed), besides `approval.vote-invalid`. */
  readonly invalidVotes?: InvalidVoteObserver;
  /**
   * The standalone server's Prometheus series for this vault (docs/library.md, "Metrics"): `true` makes a
   * registry (`vault.metrics`), or pass one `prometheusMetrics()` made. The key stores are timed and the
   * jobs, refused authentications, webhook deliveries and invalid votes counted into it (an observer
   * given above is kept instead); `vaultRouter(vault, { metrics: true })` serves it with the requests'.
   */
  readonly metrics?: boolean | PrometheusMetrics;
  /** Told the outcome of each simulation before a signature (Prometheus in the standalone server). */
  readonly simulationMetrics?: SimulationObserver;
  /**
   * How often refused authentications are written to the audit trail, one `auth.refused` record per
   * client address with a count (ms, default 60 000); `close()` writes the last interval's.
   */
  readonly authRefusedSummaryIntervalMs?: number;
  /**
   * Run even where the native secp256k1 or keccak binding did not load (default false: createVault
   * rejects with NativeBindingError, as `serve` refuses to start). The fallbacks are elliptic, which is
   * not constant-time, so timing can leak private keys, and a keccak several times slower: for a
   * development machine without a C/C++ toolchain, never for keys that matter.
   */
  readonly allowJavaScriptFallback?: boolean;
}

export class VaultOptionsError extends Error {
  override readonly name = 'VaultOptionsError';
}

type Shape = { readonly methods?: readonly string[]; readonly strings?: readonly string[] };

/** An object (class instances included, kept as they are) that has the named methods and string fields. */
const implementing = <T>(shape: Shape) =>
  z.custom<T>().superRefine((value, ctx) => {
    if (typeof value !== 'object' || value === null) {
      ctx.addIssue({ code: 'custom', message: 'must be an object' });
      return;
    }
    const v = value as Record<string, unknown>;
    for (const name of shape.strings ?? []) {
      if (typeof v[name] !== 'string' || v[name] === '') ctx.addIssue({ code: 'custom', message: `must have a non-empty string ${name}` });
    }
    for (const name of shape.methods ?? []) {
      if (typeof v[name] !== 'function') ctx.addIssue({ code: 'custom', message: `must implement ${name}()` });
    }
  });

const fn = <T>(what: string) => z.custom<T>((v) => typeof v === 'function', { message: `must be a function (${what})` });
/** An object with these methods (a port, a logger, a metrics sink). */
export const port = (methods: string[]) => implementing<unknown>({ methods });

const isWebhookKey = (pem: string) => {
  try {
    webhookSigningKey(pem);
    return true;
  } catch {
    return false;
  }
};

const keyStoreSchema = implementing<KeyStore>({ strings: ['name'], methods: ['create', 'sign', 'destroy', 'ping', 'close'] });

const persistenceSchema = implementing<unknown>({ methods: ['close'] }).pipe(
  z.looseObject({
    repository: port(['ping', 'findWallet', 'close']),
    signatureLog: port(['find', 'attachTransaction']),
    auditLog: port(['append', 'list']),
    policies: port(['find', 'save']),
    jobLock: port(['runExclusive']),
    replayGuard: fn('(now) => ReplayGuard').optional(),
    requestRates: port(['counter']).optional(),
    description: z.string().optional(),
  }),
);


const schema = z
  .strictObject({
    persistence: persistenceSchema,
    keyStores: z.array(keyStoreSchema).optional(),
    defaultKeyStore: z.string().min(1).optional(),
    authSecret: authSecretSetting.optional(),
    governancePins: z.map(z.string().min(1), z.string().regex(GOVERNANCE_PIN_HASH, 'must be 0x and 64 hex digits')).optional(),
    publicUrl: z
      .string()
      .superRefine((text, ctx) => {
        const problem = publicUrlProblem(text);
        if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    oidc: z
      .strictObject({
        issuer: z.string().superRefine((text, ctx) => {
          const problem = oidcIssuerProblem(text);
          if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
        }),
        clientId: z.string().min(1).max(1000),
        clientSecret: z.string().min(1).max(10_000).optional(),
        operatorClaim: z.string().regex(OIDC_CLAIM_NAME, 'must be a claim name (email, preferred_username, upn, …)').optional(),
      })
      .optional(),
    consoleChallenges: z
      .strictObject({
        perClient: z.int().min(CONSOLE_CHALLENGE_LIMITS.perClient.min).max(CONSOLE_CHALLENGE_LIMITS.perClient.max).optional(),
        outstanding: z.int().min(CONSOLE_CHALLENGE_LIMITS.outstanding.min).max(CONSOLE_CHALLENGE_LIMITS.outstanding.max).optional(),
      })
      .optional(),
    rpcUrls: z.record(z.string(), z.union([z.string(), z.array(z.string())], { error: 'must be a URL or an array of URLs' })).optional(),
    rpcAllowHttp: z.boolean().optional(),
    chains: z.array(z.strictObject({ name: z.string(), chainId: z.bigint() })).optional(),
    chainReader: port(['readSignable']).optional(),
    outboundTimeoutMs: z.int().min(OUTBOUND_TIMEOUT_LIMITS.min).max(OUTBOUND_TIMEOUT_LIMITS.max).optional(),
    version: z.string().min(1).optional(),
    clock: port(['now']).optional(),
    jobs: z.union([z.literal(false), z.strictObject({ intervalMs: z.int().min(PURGE_INTERVAL_LIMITS_MS.min).max(PURGE_INTERVAL_LIMITS_MS.max).optional() })]).optional(),
    logger: port(['info', 'warn', 'error']).optional(),
    jobMetrics: port(['observePurge']).optional(),
    webhooks: z
      .union([
        z.literal(false),
        z.strictObject({
          signingKey: z.string().refine(isWebhookKey, 'must be an Ed25519 private key, PKCS#8 PEM (openssl genpkey -algorithm ed25519)').optional(),
          pollIntervalMs: z.int().min(WEBHOOK_POLL_LIMITS.min).max(WEBHOOK_POLL_LIMITS.max).optional(),
        }),
      ])
      .optional(),
    webhookMetrics: port(['observeWebhookDelivery', 'observeWebhookBacklog']).optional(),
    auditStream: z
      .strictObject({
        syslogUrl: z.string().refine(isSyslogUrl, 'must be udp://host:port or tcp://host:port').optional(),
        otlpUrl: z.string().refine(isOtlpUrl, 'must be an http(s) URL without credentials').optional(),
        requireSink: z.boolean().optional(),
        pollIntervalMs: z.int().min(10).max(3_600_000).optional(),
        timeoutMs: z.int().min(100).max(600_000).optional(),
        metrics: port(['observeAuditSink', 'observeAuditStreamed', 'observeAuditSinkRefusal']).optional(),
      })
      .refine((a) => a.requireSink !== true || a.syslogUrl !== undefined || a.otlpUrl !== undefined, 'requireSink needs a sink (syslogUrl or otlpUrl)')
      .optional(),
    auditCheckpoints: z
      .union([
        z.literal(false),
        z.strictObject({
          key: z.instanceof(Uint8Array, { error: 'must be a Uint8Array (a Buffer)' }).refine((k) => k.length >= 32, 'must be at least 32 bytes of secret'),
          intervalMs: z.int().min(CHECKPOINT_INTERVAL_LIMITS_MS.min).max(CHECKPOINT_INTERVAL_LIMITS_MS.max).optional(),
        }),
      ])
      .optional(),
    configure: fn('(container) => void').optional(),
    authRefused: port(['refused']).optional(),
    invalidVotes: port(['observeInvalidVotes']).optional(),
    metrics: z.union([z.boolean(), z.instanceof(PrometheusMetrics, { error: 'must be true, false or the object prometheusMetrics() returns' })]).optional(),
    simulationMetrics: port(['observeSimulation']).optional(),
    authRefusedSummaryIntervalMs: z.int().min(1000).max(86_400_000).optional(),
    allowJavaScriptFallback: z.boolean().optional(),
  })
  .superRefine((o, ctx) => {
    const chains: AddedChain[] = [];
    for (const [i, chain] of (o.chains ?? []).entries()) {
      const problem = addedChainProblem(chain, chains);
      if (problem) ctx.addIssue({ code: 'custom', path: ['chains', i], message: problem });
      chains.push(chain);
    }
    for (const [chain, urls] of Object.entries(o.rpcUrls ?? {})) {
      if (!(RPC_CHAINS as readonly string[]).includes(chain) && !chains.some((c) => c.name === chain)) {
        ctx.addIssue({ code: 'custom', path: ['rpcUrls', chain], message: `${chain} is no chain with an RPC (add it to chains)` });
      }
      const problem = rpcUrlsProblem(rpcUrlList(urls), o.rpcAllowHttp === true);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: ['rpcUrls', chain], message: problem });
    }
    const names = (o.keyStores ?? []).map((s) => (s as { name?: unknown }).name);
    names.forEach((name, i) => {
      if (names.indexOf(name) !== i) ctx.addIssue({ code: 'custom', path: ['keyStores', i], message: `a second key store named ${String(name)}` });
    });
    if (o.defaultKeyStore !== undefined && !names.includes(o.defaultKeyStore)) {
      ctx.addIssue({ code: 'custom', path: ['defaultKeyStore'], message: `no key store named ${o.defaultKeyStore} in keyStores (${names.join(', ') || 'none'})` });
    }
  });

/** `keyStores[0].name` from zod's `['keyStores', 0, 'name']`. */
const pathOf = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');

/** Checks `createVault`'s options; a bad one throws VaultOptionsError naming every offending option. */
export function validateVaultOptions(options: unknown): VaultOptions {
  const checked = checkOptions('createVault', schema, options) as VaultOptions;
  if (checked.publicUrl === undefined && checked.governancePins === undefined) return checked;
  // Normalised as the environment's are (setting-rules.ts): the URL without trailing slashes, the pins lower-case.
  return {
    ...checked,
    ...(checked.publicUrl === undefined ? {} : { publicUrl: normalisedPublicUrl(checked.publicUrl) }),
    ...(checked.governancePins === undefined ? {} : { governancePins: new Map([...checked.governancePins].map(([vault, hash]) => [vault, hash.toLowerCase()])) }),
  };
}

/**
 * Checks the options of `what` (`createVault`, `vaultRouter`) against a strict schema and returns the
 * caller's own object, not zod's copy; a bad one throws VaultOptionsError naming every offending option.
 */
export function checkOptions(what: string, optionsSchema: z.ZodType, options: unknown): unknown {
  const parsed = optionsSchema.safeParse(options);
  if (parsed.success) return options;
  const lines = parsed.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => `${pathOf([...issue.path, key])}: not an option of ${what}`)
      : [`${pathOf(issue.path) || '(options)'}: ${issue.message}`],
  );
  throw new VaultOptionsError(`invalid ${what} options:\n  ${lines.join('\n  ')}`);
}

