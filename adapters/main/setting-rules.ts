import { z } from 'zod';
import { withoutTrailingSlashes } from '../../src/domain/url-path.js';

/**
 * The rule of each setting that both the environment (config.ts: the variables and the configuration
 * file) and createVault's options (vault-options.ts) take, written once: a value the one accepts the other
 * accepts, normalised the same, and a value it refuses the other refuses for the same reason, each naming
 * the setting its own way (`VAULT_PUBLIC_URL: …`, `publicUrl: …`).
 */

/** The auth-signature secret (VAULT_AUTH_SECRET_KEY, `authSecret`). */
export const authSecretSetting = z.string().min(32, 'must be at least 32 characters');

/** A governed vault's genesis hash as `wallet-vault governance set` prints it (any case; kept lower-case). */
export const GOVERNANCE_PIN_HASH = /^0x[0-9a-fA-F]{64}$/;

/** The console's challenges one client may hold, and all clients together (docs/console.md, "Sign-in challenges"). */
export const CONSOLE_CHALLENGE_LIMITS = { perClient: { min: 1, max: 1000 }, outstanding: { min: 2, max: 10_000_000 } } as const;

/** Bound on every outbound call, in ms (VAULT_OUTBOUND_TIMEOUT_MS, `outboundTimeoutMs`). */
export const OUTBOUND_TIMEOUT_LIMITS = { min: 100, max: 600_000 } as const;

/** How often the webhook outbox is read, in ms (VAULT_WEBHOOK_POLL_MS, `webhooks.pollIntervalMs`). */
export const WEBHOOK_POLL_LIMITS = { min: 10, max: 3_600_000 } as const;

/** How often the expiry purge runs, in ms (VAULT_PURGE_INTERVAL_SECONDS × 1000, `jobs.intervalMs`): a second to a day. */
export const PURGE_INTERVAL_LIMITS_MS = { min: 1000, max: 86_400_000 } as const;

/** How often the signed audit checkpoint is written, in ms (VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS × 1000, `auditCheckpoints.intervalMs`): a minute to 31 days. */
export const CHECKPOINT_INTERVAL_LIMITS_MS = { min: 60_000, max: 31 * 86_400_000 } as const;

const isLoopbackHost = (hostname: string) => hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';

/**
 * Why `text` cannot be the public URL (VAULT_PUBLIC_URL, `publicUrl`), or null: an http(s) origin,
 * optionally with a path prefix (a reverse proxy's), no query, fragment or credentials; https everywhere
 * but on loopback (`localhost`, 127.0.0.1, ::1), as browsers offer passkeys only to a secure context.
 */
export function publicUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text.slice(0, 100)}" is not a URL (e.g. https://vault.example)`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https (or, on loopback, http) URL';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return `http is a secure context for passkeys only on loopback; use https://${url.host}`;
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') return 'no query, fragment or credentials';
  return null;
}

/** A public URL publicUrlProblem accepts, as the vault keeps it: the origin and the path without trailing slashes. */
export function normalisedPublicUrl(text: string): string {
  const url = new URL(text);
  return `${url.origin}${withoutTrailingSlashes(url.pathname)}`;
}

/**
 * Why `text` cannot be the OpenID Connect issuer (VAULT_OIDC_ISSUER, `oidc.issuer`), or null: an https URL
 * (http on loopback only, a test's or a developer's provider), no query, fragment or credentials. It is
 * kept exactly as given: a token's `iss` must equal the issuer its discovery document names, character
 * for character (a trailing slash included).
 */
export function oidcIssuerProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text.slice(0, 100)}" is not a URL (e.g. https://login.example.com/realms/ops)`;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) return 'must be an https URL (http on loopback only)';
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') return 'no query, fragment or credentials';
  return null;
}

/** The claim that names the operator (VAULT_OIDC_OPERATOR_CLAIM, `oidc.operatorClaim`): a claim name, default `email`. */
export const OIDC_CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,99}$/;
export const DEFAULT_OIDC_OPERATOR_CLAIM = 'email';
