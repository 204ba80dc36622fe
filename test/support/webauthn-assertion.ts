import { createHash, createPrivateKey, sign } from 'node:crypto';
import type { VirtualCredential } from './console-browser.js';

/*
 * WebAuthn assertions made in Node with a passkey's private key (read from the CDP virtual authenticator),
 * so a test can alter one thing at a time (the challenge, the origin, the credential) and still sign it
 * correctly: the vault must refuse each for what was altered, not because the signature broke.
 */

const b64url = (bytes: Buffer | Uint8Array): string => Buffer.from(bytes).toString('base64url');

export interface AssertionInput {
  readonly credential: VirtualCredential;
  readonly rpId: string;
  readonly origin: string;
  /** base64url, as the options carry it. */
  readonly challenge: string;
  /** Above the counter the vault last saw, unless a test wants a replayed one. */
  readonly signCount: number;
  readonly type?: string;
}

/** An AuthenticationResponseJSON (ES256, user present and verified) signed by `credential`'s key. */
export function signedAssertion(o: AssertionInput) {
  const clientDataJSON = Buffer.from(JSON.stringify({ type: o.type ?? 'webauthn.get', challenge: o.challenge, origin: o.origin, crossOrigin: false }));
  const counter = Buffer.alloc(4);
  counter.writeUInt32BE(o.signCount);
  // rpIdHash ‖ flags (UP 0x01 | UV 0x04) ‖ signCount
  const authenticatorData = Buffer.concat([createHash('sha256').update(o.rpId).digest(), Buffer.from([0x05]), counter]);
  const key = createPrivateKey({ key: Buffer.from(o.credential.privateKey, 'base64'), format: 'der', type: 'pkcs8' });
  // ES256 over authenticatorData ‖ SHA-256(clientDataJSON), DER-encoded as WebAuthn wants it.
  const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]), key);
  const id = b64url(Buffer.from(o.credential.credentialId, 'base64'));
  return {
    id,
    rawId: id,
    type: 'public-key',
    response: {
      authenticatorData: b64url(authenticatorData),
      clientDataJSON: b64url(clientDataJSON),
      signature: b64url(signature),
      ...(o.credential.userHandle ? { userHandle: b64url(Buffer.from(o.credential.userHandle, 'base64')) } : {}),
    },
    clientExtensionResults: {},
    authenticatorAttachment: 'platform',
  };
}
