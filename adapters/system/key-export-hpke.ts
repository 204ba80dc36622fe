import { createHash } from 'node:crypto';
import { Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { DomainError, ErrorCode, invalidArgument } from '../../src/domain/errors.js';
import type { ExportLabel, KeyExportEnvelope, KeyExportSealer } from '../../src/ports/key-export-sealer.port.js';

/**
 * A key export encrypted to its recipient (docs/keystores.md#key-export): HPKE (RFC 9180) base mode,
 * DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-256-GCM, all of it by `@hpke/core`; nothing of the
 * cryptography is written here. What the export is of (its kind, vault, wallet address and the
 * recipient's fingerprint) is both the HPKE `info` and the AEAD's additional data, so a ciphertext
 * relabelled as another wallet's, or another vault's, fails to open.
 */
export const KEY_EXPORT_FORMAT = 'wallet-vault-key-export/1';
export const KEY_EXPORT_SUITE = { kem: 'DHKEM(X25519, HKDF-SHA256)', kdf: 'HKDF-SHA256', aead: 'AES-256-GCM' } as const;

const suite = () => new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });

/** A recipient's public key as its file holds it: a JSON Web Key (RFC 8037) `{"kty":"OKP","crv":"X25519","x":"<base64url>"}`. */
export interface RecipientPublicJwk {
  readonly kty: 'OKP';
  readonly crv: 'X25519';
  readonly x: string;
}

const B64URL_32 = /^[A-Za-z0-9_-]{43}$/;

/** The 32 raw bytes of a recipient key file's text; anything but an X25519 public JWK is refused, naming what is wrong. */
export function recipientPublicKeyOf(text: string, field = 'recipient key'): Uint8Array {
  let jwk: unknown;
  try {
    jwk = JSON.parse(text);
  } catch {
    throw invalidArgument(`${field}: not JSON; expected an X25519 public JWK {"kty":"OKP","crv":"X25519","x":"…"} (wallet-vault keys export-recipient makes one)`);
  }
  const k = jwk as Partial<Record<string, unknown>> | null;
  if (k === null || typeof k !== 'object' || k.kty !== 'OKP' || k.crv !== 'X25519' || typeof k.x !== 'string' || !B64URL_32.test(k.x)) {
    throw invalidArgument(`${field}: expected an X25519 public JWK {"kty":"OKP","crv":"X25519","x":"<43 base64url characters>"}`);
  }
  if (k.d !== undefined) throw invalidArgument(`${field}: this is a private key (it has "d"); give the recipient's public key file, and keep the private one where it is`);
  return Buffer.from(k.x, 'base64url');
}

/** `sha256:<hex>` of the recipient's 32 raw public-key bytes: what the audit trail and a governed proposal name. */
export function recipientFingerprint(publicKey: Uint8Array): string {
  return `sha256:${createHash('sha256').update(publicKey).digest('hex')}`;
}

/** The bytes bound as HPKE `info` and AEAD additional data: one canonical text per label. */
function labelBytes(label: ExportLabel & { readonly recipient: string }): Uint8Array {
  return Buffer.from(JSON.stringify([KEY_EXPORT_FORMAT, label.kind, label.vault, label.wallet ?? null, label.recipient]), 'utf8');
}

export const hpkeKeyExportSealer: KeyExportSealer = {
  fingerprint: recipientFingerprint,
  async seal(plaintext, recipientPublicKey, label): Promise<KeyExportEnvelope> {
    if (recipientPublicKey.length !== 32) throw invalidArgument('recipient key: an X25519 public key is 32 bytes');
    const s = suite();
    const recipient = recipientFingerprint(recipientPublicKey);
    const bound = labelBytes({ ...label, recipient });
    let publicKey: CryptoKey;
    try {
      publicKey = await s.kem.deserializePublicKey(recipientPublicKey);
    } catch {
      throw invalidArgument('recipient key: not a valid X25519 public key');
    }
    const { ct, enc } = await s.seal({ recipientPublicKey: publicKey, info: bound }, plaintext, bound);
    return {
      format: KEY_EXPORT_FORMAT,
      suite: KEY_EXPORT_SUITE,
      kind: label.kind,
      vault: label.vault,
      ...(label.wallet !== undefined ? { wallet: label.wallet } : {}),
      ...(label.derivationPath !== undefined ? { derivationPath: label.derivationPath } : {}),
      recipient,
      enc: Buffer.from(enc).toString('base64url'),
      ciphertext: Buffer.from(ct).toString('base64url'),
    };
  },
};

/** A recipient's key pair, made by WebCrypto (Node's X25519): the public JWK to hand to the operator, the private one to keep. */
export async function newRecipientKeyPair(): Promise<{ publicJwk: RecipientPublicJwk; privateJwk: JsonWebKey; fingerprint: string }> {
  const pair = (await crypto.subtle.generateKey({ name: 'X25519' }, true, ['deriveBits'])) as CryptoKeyPair;
  const publicJwk = (await crypto.subtle.exportKey('jwk', pair.publicKey)) as JsonWebKey;
  const privateJwk = (await crypto.subtle.exportKey('jwk', pair.privateKey)) as JsonWebKey;
  const pub: RecipientPublicJwk = { kty: 'OKP', crv: 'X25519', x: publicJwk.x! };
  return { publicJwk: pub, privateJwk: { kty: 'OKP', crv: 'X25519', x: privateJwk.x!, d: privateJwk.d! }, fingerprint: recipientFingerprint(Buffer.from(pub.x, 'base64url')) };
}

/**
 * Opens an export file with the recipient's private JWK: the plaintext (the caller zeroes it) and the
 * label it was sealed under. A file whose label, enc or ciphertext was changed, or sealed to another
 * key, is refused (INVALID_ARGUMENT), never partly opened.
 */
export async function openKeyExport(envelopeText: string, privateJwkText: string): Promise<{ plaintext: Buffer; envelope: KeyExportEnvelope }> {
  let envelope: KeyExportEnvelope;
  let jwk: JsonWebKey;
  try {
    envelope = JSON.parse(envelopeText) as KeyExportEnvelope;
  } catch {
    throw invalidArgument('export file: not JSON');
  }
  try {
    jwk = JSON.parse(privateJwkText) as JsonWebKey;
  } catch {
    throw invalidArgument('recipient private key: not JSON');
  }
  if (envelope === null || typeof envelope !== 'object' || envelope.format !== KEY_EXPORT_FORMAT) throw invalidArgument(`export file: not a ${KEY_EXPORT_FORMAT} file`);
  if (envelope.kind !== 'wallet' && envelope.kind !== 'hd-seed') throw invalidArgument('export file: kind is neither wallet nor hd-seed');
  if (jwk === null || typeof jwk !== 'object' || jwk.kty !== 'OKP' || jwk.crv !== 'X25519' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string') {
    throw invalidArgument('recipient private key: expected the X25519 private JWK {"kty":"OKP","crv":"X25519","x":…,"d":…} made with the public one');
  }
  const publicKey = Buffer.from(jwk.x, 'base64url');
  if (recipientFingerprint(publicKey) !== envelope.recipient) throw invalidArgument(`export file: sealed to recipient ${envelope.recipient}, not to this key (${recipientFingerprint(publicKey)})`);
  const s = suite();
  const bound = labelBytes({ kind: envelope.kind, vault: envelope.vault, wallet: envelope.wallet, recipient: envelope.recipient });
  try {
    const recipientKey = await s.kem.importKey('jwk', { kty: 'OKP', crv: 'X25519', x: jwk.x, d: jwk.d }, false);
    const pt = await s.open({ recipientKey, enc: Buffer.from(envelope.enc, 'base64url'), info: bound }, Buffer.from(envelope.ciphertext, 'base64url'), bound);
    return { plaintext: Buffer.from(pt), envelope };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'export file: it does not open with this key (changed, relabelled, or sealed to another key)');
  }
}
