import type { AuthenticationResponseJSON, AuthenticatorTransport, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Passkey } from '../../src/ports/console-store.port.js';
import type { RegisteredCredential, RelyingParty } from '../../src/ports/relying-party.port.js';

/** How long the browser gives the approver to touch the authenticator (the server keeps a challenge 5 min). */
const TIMEOUT_MS = 120_000;
/** ES256 (-7) and RS256 (-257), as every platform authenticator offers one of them; EdDSA (-8) too. */
const ALGORITHMS = [-7, -8, -257];

/**
 * The library, loaded at the console's first passkey step: it costs a quarter of a second to load, which
 * every CLI command and every server that never enrols an approver would otherwise pay at start.
 */
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (library ??= import('@simplewebauthn/server'));

const fromBase64url = (text: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(text, 'base64url'));

/**
 * The console's relying party over @simplewebauthn/server (a kept library: attestation and assertion
 * parsing is never written here). `publicUrl` is VAULT_PUBLIC_URL: its origin is the one expected in
 * clientDataJSON, its hostname the rpId. Attestation `none`: the vault trusts the invite, not a vendor.
 */
export function simpleWebAuthnRelyingParty(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  const origin = url.origin;
  const rpId = url.hostname;
  return {
    origin,
    rpId,
    registrationOptions: async ({ challenge, userId, userName }) =>
      (await webauthn()).generateRegistrationOptions({
        rpName: `wallet-vault ${url.host}`,
        rpID: rpId,
        userName,
        userID: new TextEncoder().encode(userId),
        challenge: fromBase64url(challenge),
        timeout: TIMEOUT_MS,
        attestationType: 'none',
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
        supportedAlgorithmIDs: ALGORITHMS,
      }),
    async verifyRegistration(response, challenge): Promise<RegisteredCredential | null> {
      try {
        const result = await (await webauthn()).verifyRegistrationResponse({
          response: response as RegistrationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpId,
          requireUserVerification: false,
          supportedAlgorithmIDs: ALGORITHMS,
        });
        if (!result.verified) return null;
        const { credential } = result.registrationInfo;
        return {
          credentialId: credential.id,
          publicKey: Buffer.from(credential.publicKey).toString('base64url'),
          counter: credential.counter,
          transports: credential.transports ?? [],
        };
      } catch {
        return null;
      }
    },
    authenticationOptions: async (challenge, allow) =>
      (await webauthn()).generateAuthenticationOptions({
        rpID: rpId,
        challenge: fromBase64url(challenge),
        timeout: TIMEOUT_MS,
        userVerification: 'preferred',
        allowCredentials: allow.map((p) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransport[] })),
      }),
    assertionCredentialId(response) {
      const id = (response as { id?: unknown } | null)?.id;
      return typeof id === 'string' && id.length > 0 && id.length <= 1024 ? id : null;
    },
    async verifyAssertion(response, challenge, passkey: Passkey) {
      try {
        if ((response as { id?: unknown }).id !== passkey.credentialId) return null;
        const result = await (await webauthn()).verifyAuthenticationResponse({
          response: response as AuthenticationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpId,
          // The stored counter is compared by the caller; 0 here accepts any value the library would.
          credential: { id: passkey.credentialId, publicKey: fromBase64url(passkey.publicKey), counter: 0, transports: passkey.transports as AuthenticatorTransport[] },
          requireUserVerification: false,
        });
        return result.verified ? { counter: result.authenticationInfo.newCounter } : null;
      } catch {
        return null;
      }
    },
  };
}
