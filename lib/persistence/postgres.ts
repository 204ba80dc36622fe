/** `wallet-vault/persistence/postgres`. */
export * from '../../adapters/persistence/postgres/index.js';
