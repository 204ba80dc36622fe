import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { WebhookOutbox } from '../../src/ports/webhook-outbox.port.js';

/** A public key as the JWKS at `GET /.well-known/wallet-vault-webhook-keys` lists it (RFC 8037). */
export interface WebhookJwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly x: string;
  readonly kid: string;
  readonly use: 'sig';
  readonly alg: 'EdDSA';
}

export interface WebhookKeySet {
  readonly keys: readonly WebhookJwk[];
}

/** The key deliveries are signed with, and its public half as a JWK. */
export interface WebhookSigningKey {
  readonly privateKey: KeyObject;
  readonly jwk: WebhookJwk;
}

export class WebhookKeyError extends Error {
  override readonly name = 'WebhookKeyError';
}

/** A new Ed25519 private key, PKCS#8 PEM. */
export const generateWebhookKeyPem = (): string => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** The key of a PKCS#8 PEM text; anything but an Ed25519 private key throws WebhookKeyError (naming no key bytes). */
export function webhookSigningKey(pem: string): WebhookSigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new WebhookKeyError('not a PEM private key (expected an Ed25519 key in PKCS#8: openssl genpkey -algorithm ed25519)');
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') {
    throw new WebhookKeyError(`a ${privateKey.asymmetricKeyType ?? 'unknown'} key; webhooks are signed with Ed25519 (openssl genpkey -algorithm ed25519)`);
  }
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' }) as { x: string };
  // RFC 7638 thumbprint: the key's id is a function of the key alone, the same on every instance.
  const kid = createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x })).digest('base64url');
  return { privateKey, jwk: { kty: 'OKP', crv: 'Ed25519', x, kid, use: 'sig', alg: 'EdDSA' } };
}

/** The Standard Webhooks signature header value: `v1a,<base64 Ed25519 signature of "id.timestamp.body">`. */
export const signWebhook = (key: WebhookSigningKey, id: string, timestamp: number, body: string): string =>
  `v1a,${sign(null, Buffer.from(`${id}.${timestamp}.${body}`), key.privateKey).toString('base64')}`;

/**
 * The deployment's signing key: the configured one (VAULT_WEBHOOK_SIGNING_KEY, createVault's
 * `webhooks.signingKey`) or, when none is, the one generated once and kept in the database. Resolved on
 * first use and kept.
 */
export class WebhookKeys {
  private resolved: Promise<WebhookSigningKey> | undefined;

  constructor(
    private readonly configuredPem: string | undefined,
    private readonly outbox: WebhookOutbox | undefined,
    private readonly now: () => Date,
  ) {}

  key(): Promise<WebhookSigningKey> {
    this.resolved ??= this.resolve().catch((error: unknown) => {
      this.resolved = undefined; // a database that did not answer is asked again next time
      throw error;
    });
    return this.resolved;
  }

  async keySet(): Promise<WebhookKeySet> {
    return { keys: [(await this.key()).jwk] };
  }

  private async resolve(): Promise<WebhookSigningKey> {
    if (this.configuredPem !== undefined) return webhookSigningKey(this.configuredPem);
    if (!this.outbox) throw new WebhookKeyError('no webhook signing key: none configured, and the persistence keeps none');
    return webhookSigningKey(await this.outbox.storedSigningKey(generateWebhookKeyPem, this.now()));
  }
}
