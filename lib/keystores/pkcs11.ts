/** `wallet-vault/keystores/pkcs11`. */
export * from '../../adapters/keystore/pkcs11/index.js';
