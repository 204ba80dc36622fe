import type { Passkey } from './console-store.port.js';

/*
 * The WebAuthn relying party of the approvers' console (docs/console.md): a kept library behind it
 * (@simplewebauthn/server in adapters/webauthn), never attestation or assertion parsing written here.
 * Challenges are base64url text of the bytes the authenticator signs over (clientDataJSON.challenge).
 */

/** A credential a registration response proved, ready to store. */
export interface RegisteredCredential {
  readonly credentialId: string;
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
}

export interface RelyingParty {
  /** VAULT_PUBLIC_URL's origin (scheme, host, port): what clientDataJSON.origin must be. */
  readonly origin: string;
  /** Its hostname: the rpId. */
  readonly rpId: string;
  /** PublicKeyCredentialCreationOptionsJSON for `challenge`; the user handle is `userId`. */
  registrationOptions(input: { challenge: string; userId: string; userName: string }): Promise<unknown>;
  /** The credential of a RegistrationResponseJSON over `challenge` at this origin and rpId; null when it does not verify (anything malformed included). */
  verifyRegistration(response: unknown, challenge: string): Promise<RegisteredCredential | null>;
  /** PublicKeyCredentialRequestOptionsJSON for `challenge`; `allow` empty: discoverable credentials. */
  authenticationOptions(challenge: string, allow: readonly Passkey[]): Promise<unknown>;
  /** The credential id an AuthenticationResponseJSON names (its `id`), or null when it has none. */
  assertionCredentialId(response: unknown): string | null;
  /**
   * Whether `response` is `passkey`'s assertion over `challenge` at this origin and rpId (user present):
   * the authenticator's new counter, or null. Counters are not compared here (the caller does, when it
   * records one).
   */
  verifyAssertion(response: unknown, challenge: string, passkey: Passkey): Promise<{ readonly counter: number } | null>;
}
