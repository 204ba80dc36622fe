import { createDecipheriv } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** A fixed master key for tests that must read a wallet's private key back (to prove it never leaks). */
export const TEST_MASTER_KEY = 'a1'.repeat(32);

/**
 * The wallet's private key as lower-case hex (no 0x), decrypted from its key file the way the local store
 * reads it: "WVK1" | IV | GCM tag | ciphertext, the lower-case address as associated data.
 */
export async function readLocalPrivateKey(dataDir: string, masterKeyHex: string, address: string): Promise<string> {
  const ref = address.toLowerCase();
  const sealed = await readFile(path.join(dataDir, 'keys', `${ref}.key`));
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(masterKeyHex, 'hex'), sealed.subarray(4, 16));
  decipher.setAAD(Buffer.from(ref, 'utf8'));
  decipher.setAuthTag(sealed.subarray(16, 32));
  return Buffer.concat([decipher.update(sealed.subarray(32)), decipher.final()]).toString('hex');
}
