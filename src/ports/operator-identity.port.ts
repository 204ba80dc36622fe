/*
 * The company's OpenID Connect identity provider, as the operators' sign-in sees it (docs/operators.md,
 * "Sign-in with OpenID Connect"): a kept relying-party library behind it (openid-client in adapters/oidc),
 * never a JWT parsed or a signature checked here.
 */

/** What a browser keeps between the redirect to the provider and its way back (an HttpOnly cookie): never stored by the vault. */
export interface PendingSignIn {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** The claims of a token the provider signed for this vault (issuer, audience, signature and expiry checked). */
export type IdentityClaims = Readonly<Record<string, unknown>>;

export interface OperatorIdentityProvider {
  /** VAULT_OIDC_ISSUER, as the provider's discovery document names it. */
  readonly issuer: string;
  /** The claim whose value is an operator's name (VAULT_OIDC_OPERATOR_CLAIM). */
  readonly operatorClaim: string;
  /**
   * Where to send the browser (the authorization code flow with PKCE, S256) to come back at `redirectUri`,
   * and what it must bring back. Throws OIDC_UNAVAILABLE when the provider's discovery cannot be read.
   */
  begin(redirectUri: string): Promise<{ readonly url: string; readonly pending: PendingSignIn }>;
  /**
   * Redeems the code of `callbackUrl` (state, PKCE verifier and nonce checked) with the client's
   * credentials and answers the ID token. Throws UNAUTHENTICATED for a refused or mismatched answer,
   * OIDC_UNAVAILABLE when the provider cannot be reached.
   */
  complete(callbackUrl: string, redirectUri: string, pending: PendingSignIn): Promise<string>;
  /**
   * The claims of a JWT (an ID token, or an access token issued for this client) that the provider signed
   * with a key of its JWKS (asymmetric algorithms only), whose `iss` is the issuer, whose `aud` names the
   * client (and `azp`, when several), and which has not expired at `now` (the vault's clock). Throws
   * UNAUTHENTICATED for anything else, OIDC_UNAVAILABLE when the keys cannot be fetched.
   */
  verify(token: string, now: Date): Promise<{ readonly claims: IdentityClaims; readonly expires: Date }>;
}
