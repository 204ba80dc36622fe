/** `wallet-vault/keystores/vault-transit`. */
export * from '../../adapters/keystore/vault-transit/index.js';
