import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/*
 * A software WebAuthn authenticator (ES256 over P-256, node:crypto) for HTTP tests of the approvers'
 * console: registration responses with attestation `none` and assertions, as a browser hands them to the
 * page (RegistrationResponseJSON, AuthenticationResponseJSON). Every input the vault checks can be changed
 * one at a time (origin, rpId, challenge, counter) while the signature stays correct for what is sent, so a
 * refusal is for what was changed, never for a broken signature.
 */

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();

export interface CeremonyOptions {
  /** The page's origin as the browser reports it (clientDataJSON.origin). */
  readonly origin: string;
  /** The rpId whose hash leads authenticatorData. */
  readonly rpId: string;
}

export class SoftwareAuthenticator {
  readonly credentialId: Buffer;
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  /** The signature counter; 0 forever with `counting: false` (an authenticator that does not count). */
  counter = 0;

  /** `credentialId`: another's credential id with a key of its own (a forger who replaced a stored public key). */
  constructor(
    private readonly counting = true,
    credentialId: Buffer = randomBytes(16),
  ) {
    this.credentialId = Buffer.from(credentialId);
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
    this.publicJwk = { x: jwk.x, y: jwk.y };
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** Its COSE public key, base64url, as the vault stores a passkey's (approver_passkeys.public_key). */
  get publicKey(): string {
    return b64url(this.cosePublicKey());
  }

  private cosePublicKey(): Uint8Array {
    const key = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(this.publicJwk.x, 'base64url')],
      [-3, Buffer.from(this.publicJwk.y, 'base64url')],
    ]);
    return isoCBOR.encode(key as never);
  }

  private signCount(): Buffer {
    if (this.counting) this.counter += 1;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.counter);
    return count;
  }

  /** A RegistrationResponseJSON for `options` (PublicKeyCredentialCreationOptionsJSON), attestation none. */
  register(options: { challenge: string }, o: CeremonyOptions) {
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: o.origin, crossOrigin: false }));
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    // rpIdHash ‖ flags (UP 0x01 | UV 0x04 | AT 0x40) ‖ signCount ‖ aaguid ‖ credentialIdLength ‖ credentialId ‖ COSE key
    const authData = Buffer.concat([sha256(o.rpId), Buffer.from([0x45]), this.signCount(), Buffer.alloc(16), idLength, this.credentialId, this.cosePublicKey()]);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]) as never);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** An AuthenticationResponseJSON over `challenge` (base64url), signed with this credential's key. */
  assert(challenge: string, o: CeremonyOptions & { readonly type?: string }) {
    const clientDataJSON = Buffer.from(JSON.stringify({ type: o.type ?? 'webauthn.get', challenge, origin: o.origin, crossOrigin: false }));
    const authenticatorData = Buffer.concat([sha256(o.rpId), Buffer.from([0x05]), this.signCount()]);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { authenticatorData: b64url(authenticatorData), clientDataJSON: b64url(clientDataJSON), signature: b64url(signature), userHandle: b64url(Buffer.from('user')) },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
