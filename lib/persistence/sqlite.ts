/** `wallet-vault/persistence/sqlite`. */
export * from '../../adapters/persistence/sqlite/index.js';
