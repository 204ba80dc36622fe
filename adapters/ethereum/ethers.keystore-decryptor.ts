import { decryptKeystoreJson, isKeystoreJson } from 'ethers';
import { invalidArgument } from '../../src/domain/errors.js';
import type { KeystoreDecryptor } from '../../src/ports/keystore-decryptor.port.js';

/**
 * V3 keystores (Web3 Secret Storage: scrypt or pbkdf2, AES-128-CTR, the keccak MAC) opened with ethers'
 * decryptKeystoreJson. The password goes in as bytes (no copy of it as text is made here). What ethers
 * gives back is the key as a hex string: JavaScript strings cannot be zeroed, so that one copy stays in
 * the heap until it is collected. The buffer made from it is the caller's, to zero.
 */
export class EthersKeystoreDecryptor implements KeystoreDecryptor {
  async decrypt(json: string, password: Uint8Array, field: string): Promise<Buffer> {
    if (!isKeystoreJson(json)) throw invalidArgument(`${field}: not a V3 keystore (JSON with "version": 3 and a "crypto" section)`);
    let hex: string;
    try {
      hex = (await decryptKeystoreJson(json, password)).privateKey;
    } catch (error) {
      const e = error as { argument?: string; shortMessage?: string };
      if (e.argument === 'password') throw invalidArgument(`${field}: wrong password (the keystore's MAC does not match)`);
      if (e.argument === 'address') throw invalidArgument(`${field}: the key does not match the keystore's "address"`);
      // ethers' short messages name the format's fields (kdf, cipher), never a value of the secret ones.
      throw invalidArgument(`${field}: cannot be decrypted (${(e.shortMessage ?? 'malformed keystore').slice(0, 120)})`);
    }
    return Buffer.from(hex.slice(2), 'hex');
  }
}
