import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * File formats:
 * - "WVK1" | 12-byte IV | 16-byte GCM tag | 32-byte ciphertext (releases before deployment ids, and keys
 *   created without an owner): associated data the key reference.
 * - "WVK2" | 1-byte label length n | n bytes of label (JSON {"deployment", "vault"}) | IV | tag |
 *   ciphertext: associated data the key reference, a newline and the label, so a label edited to pass
 *   a key off as another deployment's (or another vault's) fails authentication.
 */
const MAGIC_V1 = Buffer.from('WVK1');
const MAGIC_V2 = Buffer.from('WVK2');
const SEALED_LENGTH = 12 + 16 + 32;
/** Header bytes read to list a key: the magic, the length byte and the longest label. */
export const KEY_FILE_HEADER_MAX = 4 + 1 + 255;

/** Who a key file belongs to, in clear in its header (authenticated, not secret). */
export interface KeyLabel {
  readonly deploymentId: string;
  readonly vaultId: string | null;
}

/** Key files are `<lower-case address>.key`; the address is also the GCM associated data. */
export const KEY_REF = /^0x[0-9a-f]{40}$/;
export const KEY_FILE_SUFFIX = '.key';

/** The key reference a directory entry names, or undefined for anything that is not a key file. */
export function keyRefOfFileName(name: string): string | undefined {
  if (!name.endsWith(KEY_FILE_SUFFIX)) return undefined;
  const ref = name.slice(0, -KEY_FILE_SUFFIX.length);
  return KEY_REF.test(ref) ? ref : undefined;
}

/**
 * A vault's HD seed (its BIP-39 entropy, 32 bytes like a key) is wrapped as a key file is, in
 * `hd-seed-<vault id>.key`, that name (without `.key`) its associated data: it is re-wrapped by a master
 * key rotation with the key files, and never taken for a wallet's key (it names no address).
 */
const SEED_REF = /^hd-seed-[A-Za-z0-9_-]{1,64}$/;
export const seedRefOf = (vaultId: string): string => `hd-seed-${vaultId}`;

/** The reference of a key file or a seed file (what a rotation re-wraps), or undefined. */
export function wrappedRefOfFileName(name: string): string | undefined {
  if (!name.endsWith(KEY_FILE_SUFFIX)) return undefined;
  const ref = name.slice(0, -KEY_FILE_SUFFIX.length);
  return KEY_REF.test(ref) || SEED_REF.test(ref) ? ref : undefined;
}

/** Wraps a private key under `masterKey` (AES-256-GCM); with a label, in the WVK2 format that carries it. */
export function sealKey(masterKey: Buffer, keyRef: string, privateKey: Buffer, label?: KeyLabel | null): Buffer {
  const header = label ? labelHeader(label) : MAGIC_V1;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  cipher.setAAD(associatedData(keyRef, header));
  const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()]);
  return Buffer.concat([header, iv, cipher.getAuthTag(), ciphertext]);
}

/**
 * The private key in `sealed`, or null when the file is malformed or `masterKey` is not the key that
 * wrapped it. The returned buffer is the only plaintext copy left: the caller zeroes it once done.
 */
export function unsealKey(masterKey: Buffer, keyRef: string, sealed: Buffer): Buffer | null {
  const headerLength = headerLengthOf(sealed);
  if (headerLength === null || sealed.length !== headerLength + SEALED_LENGTH) return null;
  const header = sealed.subarray(0, headerLength);
  const body = sealed.subarray(headerLength);
  let plaintext: Buffer | undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', masterKey, body.subarray(0, 12));
    decipher.setAAD(associatedData(keyRef, header));
    decipher.setAuthTag(body.subarray(12, 28));
    // GCM is a stream mode: update() gives every byte and final() only checks the tag, giving none. So
    // update's own buffer is returned, not a concatenation that would leave it behind unzeroed.
    plaintext = decipher.update(body.subarray(28));
    const rest = decipher.final();
    if (rest.length !== 0 || plaintext.length !== 32) {
      rest.fill(0);
      throw new Error('unexpected plaintext length');
    }
    return plaintext;
  } catch {
    // A tag that fails (a tampered file) throws in final(), after update() gave the decrypted bytes:
    // with the right master key, those are the private key.
    plaintext?.fill(0);
    return null;
  }
}

/**
 * The label in a key file's header (only the header is needed), or null for a WVK1 file or one that is
 * not a key file. Not authenticated here (that needs the master key): the sweep acts on it only to keep a
 * key, never to destroy one, and signing unseals the whole file, which checks the label.
 */
export function keyLabelOf(sealed: Buffer): KeyLabel | null {
  const headerLength = headerLengthOf(sealed);
  if (headerLength === null || headerLength === MAGIC_V1.length) return null;
  try {
    const parsed = JSON.parse(sealed.subarray(5, headerLength).toString('utf8')) as { deployment?: unknown; vault?: unknown };
    if (typeof parsed.deployment !== 'string' || parsed.deployment === '') return null;
    return { deploymentId: parsed.deployment, vaultId: typeof parsed.vault === 'string' ? parsed.vault : null };
  } catch {
    return null;
  }
}

function labelHeader(label: KeyLabel): Buffer {
  const json = Buffer.from(JSON.stringify({ deployment: label.deploymentId, vault: label.vaultId }), 'utf8');
  if (json.length > 255) throw new Error('local key store: key label too long');
  return Buffer.concat([MAGIC_V2, Buffer.from([json.length]), json]);
}

function headerLengthOf(sealed: Buffer): number | null {
  if (sealed.length < 4) return null;
  const magic = sealed.subarray(0, 4);
  if (magic.equals(MAGIC_V1)) return 4;
  if (magic.equals(MAGIC_V2) && sealed.length >= 5) return 5 + sealed[4]!;
  return null;
}

function associatedData(keyRef: string, header: Buffer): Buffer {
  if (header.equals(MAGIC_V1)) return Buffer.from(keyRef, 'utf8');
  return Buffer.concat([Buffer.from(`${keyRef}\n`, 'utf8'), header.subarray(5)]);
}
