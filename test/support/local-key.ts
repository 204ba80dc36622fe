import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { unsealKey } from '../../adapters/keystore/local-file/key-file.js';

/** A fixed master key for tests that must read a wallet's private key back (to prove it never leaks). */
export const TEST_MASTER_KEY = 'a1'.repeat(32);

/** The wallet's private key as lower-case hex (no 0x), unsealed from its key file as the local store does. */
export async function readLocalPrivateKey(dataDir: string, masterKeyHex: string, address: string): Promise<string> {
  const ref = address.toLowerCase();
  const key = unsealKey(Buffer.from(masterKeyHex, 'hex'), ref, await readFile(path.join(dataDir, 'keys', `${ref}.key`)));
  if (key === null) throw new Error(`key file of ${ref} does not open under the given master key`);
  return key.toString('hex');
}
