/** `wallet-vault/keystores/gcp-kms`. */
import { installKeccak256 } from '../../adapters/system/keccak.js';
export * from '../../adapters/keystore/gcp-kms/index.js';

// The domain hashes with the keccak256 it is given (src/domain/keccak.ts): this entry gives it before anything of it runs.
installKeccak256();
