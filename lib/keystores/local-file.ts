/** `wallet-vault/keystores/local-file`. */
export * from '../../adapters/keystore/local-file/index.js';
