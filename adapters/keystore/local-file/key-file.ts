import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** File format: magic "WVK1" | 12-byte IV | 16-byte GCM tag | 32-byte ciphertext. */
const MAGIC = Buffer.from('WVK1');
const FILE_LENGTH = 4 + 12 + 16 + 32;

/** Key files are `<lower-case address>.key`; the address is also the GCM associated data. */
export const KEY_REF = /^0x[0-9a-f]{40}$/;
export const KEY_FILE_SUFFIX = '.key';

/** The key reference a directory entry names, or undefined for anything that is not a key file. */
export function keyRefOfFileName(name: string): string | undefined {
  if (!name.endsWith(KEY_FILE_SUFFIX)) return undefined;
  const ref = name.slice(0, -KEY_FILE_SUFFIX.length);
  return KEY_REF.test(ref) ? ref : undefined;
}

/** Wraps a private key under `masterKey` (AES-256-GCM, the key reference as associated data). */
export function sealKey(masterKey: Buffer, keyRef: string, privateKey: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  cipher.setAAD(Buffer.from(keyRef, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()]);
  return Buffer.concat([MAGIC, iv, cipher.getAuthTag(), ciphertext]);
}

/**
 * The private key in `sealed`, or null when the file is malformed or `masterKey` is not the key that
 * wrapped it. The returned buffer is the only plaintext copy left: the caller zeroes it once done.
 */
export function unsealKey(masterKey: Buffer, keyRef: string, sealed: Buffer): Buffer | null {
  if (sealed.length !== FILE_LENGTH || !sealed.subarray(0, 4).equals(MAGIC)) return null;
  let plaintext: Buffer | undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', masterKey, sealed.subarray(4, 16));
    decipher.setAAD(Buffer.from(keyRef, 'utf8'));
    decipher.setAuthTag(sealed.subarray(16, 32));
    // GCM is a stream mode: update() gives every byte and final() only checks the tag, giving none. So
    // update's own buffer is returned, not a concatenation that would leave it behind unzeroed.
    plaintext = decipher.update(sealed.subarray(32));
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
