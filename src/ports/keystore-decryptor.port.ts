/**
 * Opens a key file in the Web3 Secret Storage format (a "V3 keystore", as geth, ethers and MetaMask write
 * it): what a key import is given besides a raw private key.
 */
export interface KeystoreDecryptor {
  /**
   * The 32-byte private key in `json`, decrypted with `password` (scrypt or pbkdf2, the MAC checked), in
   * a fresh buffer the caller owns and zeroes. Rejects with a DomainError INVALID_ARGUMENT naming
   * `field` (never the password or the key) when the text is not such a keystore or the password is wrong.
   */
  decrypt(json: string, password: Uint8Array, field: string): Promise<Buffer>;
}
