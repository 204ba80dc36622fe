/** `wallet-vault/keystores/aws-kms`. */
export * from '../../adapters/keystore/aws-kms/index.js';
