import type { JWTPayload } from 'jose';
import type * as Jose from 'jose';
import type * as OpenIdClient from 'openid-client';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import type { IdentityClaims, OperatorIdentityProvider, PendingSignIn } from '../../src/ports/operator-identity.port.js';

/*
 * The operators' identity provider over openid-client (the relying party: discovery, the authorization
 * code flow with PKCE, the token request with the client's secret) and jose, the JOSE library openid-client
 * is built on (a token's signature against the provider's JWKS, its claims against the vault's clock).
 * Nothing here parses a JWT or checks a signature by hand. Both load at the first sign-in or token, not
 * with the module: every command of the CLI builds the use cases, and none of them needs these.
 */

type Libraries = { readonly oidc: typeof OpenIdClient; readonly jose: typeof Jose };
let loaded: Promise<Libraries> | undefined;
const libraries = (): Promise<Libraries> => (loaded ??= Promise.all([import('openid-client'), import('jose')]).then(([oidc, jose]) => ({ oidc, jose })));

export interface OidcSettings {
  /** VAULT_OIDC_ISSUER: the issuer identifier; its discovery document is `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string;
  /** VAULT_OIDC_CLIENT_ID: the client registered for the vault; every token's audience must name it. */
  readonly clientId: string;
  /** VAULT_OIDC_CLIENT_SECRET: the token request's client authentication (client_secret_basic); absent: a public client (PKCE only). */
  readonly clientSecret?: string;
  /** VAULT_OIDC_OPERATOR_CLAIM: the claim whose value is an operator's name. */
  readonly operatorClaim: string;
  /** Bound on each call to the provider (VAULT_OUTBOUND_TIMEOUT_MS). */
  readonly timeoutMs: number;
}

/** Signatures of asymmetric keys only: an HMAC token would be signed with the client's secret, which the vault holds too. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Clocks of the provider and the vault may differ by this much, in seconds. */
const CLOCK_TOLERANCE_S = 30;
/** A discovery that failed is retried after this long, not on every request. */
const DISCOVERY_RETRY_MS = 5000;

const isLoopback = (url: URL) => url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';

const unavailable = (why: string, cause?: unknown) =>
  new DomainError(ErrorCode.OIDC_UNAVAILABLE, `the identity provider cannot be reached: ${why} (docs/operators.md, "Sign-in with OpenID Connect")`, { cause });
const refused = (why: string) => new DomainError(ErrorCode.UNAUTHENTICATED, `operator token refused: ${why}`);

/** Whether an error is the network's or the provider's being down (not an answer that refuses). */
function isUnreachable(error: unknown, jose: typeof Jose): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === 'TimeoutError' || e.name === 'AbortError' || (e instanceof TypeError && /fetch failed/.test(e.message))) return true;
    if (e instanceof jose.errors.JWKSTimeout) return true;
    if (/^E(CONNREFUSED|CONNRESET|HOSTUNREACH|NOTFOUND|AI_AGAIN|TIMEDOUT)$/.test(String((e as { code?: unknown }).code))) return true;
  }
  return false;
}

export function openIdConnectIdentityProvider(settings: OidcSettings): OperatorIdentityProvider {
  const issuerUrl = new URL(settings.issuer);
  let discovered: (Libraries & { configuration: OpenIdClient.Configuration; keys: ReturnType<typeof Jose.createRemoteJWKSet>; issuer: string }) | undefined;
  let pending: Promise<NonNullable<typeof discovered>> | undefined;
  let failedAt = -Infinity;

  /** The provider's metadata, read once (and again after a failure, at most every DISCOVERY_RETRY_MS). */
  async function provider(): Promise<NonNullable<typeof discovered>> {
    if (discovered !== undefined) return discovered;
    if (pending === undefined) {
      if (Date.now() - failedAt < DISCOVERY_RETRY_MS) throw unavailable(`its discovery document at ${settings.issuer} could not be read a moment ago`);
      pending = (async () => {
        const { oidc, jose } = await libraries();
        const configuration = await oidc.discovery(
          issuerUrl,
          settings.clientId,
          undefined,
          settings.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(settings.clientSecret),
          // http only on loopback (the configuration refuses it elsewhere): a test's or a developer's provider.
          { timeout: Math.ceil(settings.timeoutMs / 1000), ...(issuerUrl.protocol === 'http:' && isLoopback(issuerUrl) ? { execute: [oidc.allowInsecureRequests] } : {}) },
        );
        const metadata = configuration.serverMetadata();
        if (metadata.jwks_uri === undefined) throw new Error('the discovery document names no jwks_uri');
        const keys = jose.createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: settings.timeoutMs });
        return (discovered = { oidc, jose, configuration, keys, issuer: metadata.issuer });
      })();
      pending.catch(() => {
        pending = undefined;
        failedAt = Date.now();
      });
    }
    try {
      return await pending;
    } catch (error) {
      throw unavailable(`its discovery document at ${settings.issuer} could not be read (${(error as Error).message.slice(0, 200)})`, error);
    }
  }

  async function verify(token: string, now: Date): Promise<{ claims: IdentityClaims; expires: Date }> {
    const { keys, issuer, jose } = await provider();
    const joseErrors = jose.errors;
    let payload: JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, keys, {
        issuer,
        audience: settings.clientId,
        algorithms: ALGORITHMS,
        currentDate: now,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['iss', 'aud', 'exp', 'iat', 'sub'],
      }));
    } catch (error) {
      if (isUnreachable(error, jose)) throw unavailable('its signing keys (jwks_uri) could not be fetched', error);
      if (error instanceof joseErrors.JWTExpired) throw refused(`it expired at ${new Date(Number(error.payload.exp) * 1000).toISOString()}; sign in again`);
      if (error instanceof joseErrors.JWTClaimValidationFailed) throw refused(`its ${error.claim} claim does not match (${error.reason}): it was not issued for this vault by ${issuer}`);
      if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSNoMatchingKey) throw refused(`its signature is not one of ${issuer}'s keys`);
      if (error instanceof joseErrors.JOSEAlgNotAllowed) throw refused(`its algorithm is not one the vault accepts (${ALGORITHMS.join(', ')})`);
      throw refused('it is not a JWT signed by the identity provider');
    }
    // Several audiences: the party it was issued to must be this client (OpenID Connect Core 3.1.3.7).
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== settings.clientId) throw refused('its azp claim does not name this vault\'s client');
    return { claims: payload as IdentityClaims, expires: new Date(payload.exp! * 1000) };
  }

  return {
    issuer: settings.issuer,
    operatorClaim: settings.operatorClaim,
    async begin(redirectUri) {
      const { configuration, oidc } = await provider();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url: url.href, pending: { state, nonce, codeVerifier } };
    },
    async complete(callbackUrl, redirectUri, expected: PendingSignIn) {
      const { configuration, oidc, jose } = await provider();
      let idToken: string | undefined;
      try {
        const tokens = await oidc.authorizationCodeGrant(
          configuration,
          new URL(callbackUrl),
          { pkceCodeVerifier: expected.codeVerifier, expectedState: expected.state, expectedNonce: expected.nonce, idTokenExpected: true },
          { redirect_uri: redirectUri },
        );
        idToken = tokens.id_token;
      } catch (error) {
        if (isUnreachable(error, jose)) throw unavailable('its token endpoint did not answer', error);
        if (error instanceof oidc.AuthorizationResponseError) throw refused(`the identity provider answered ${error.error}${error.error_description ? ` (${error.error_description.slice(0, 200)})` : ''}`);
        if (error instanceof oidc.ResponseBodyError) throw refused(`the token request was refused: ${error.error}`);
        throw refused(`the sign-in's answer does not check out (${(error as Error).message.slice(0, 200)})`);
      }
      if (idToken === undefined) throw refused('the identity provider answered no ID token');
      return idToken;
    },
    verify,
  };
}
