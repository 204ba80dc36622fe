import type { KeyStoreModule } from './key-store-module.js';
import { awsKmsModule } from './aws-kms/module.js';
import { azureKeyVaultModule } from './azure-key-vault/module.js';
import { gcpKmsModule } from './gcp-kms/module.js';
import { localFileModule } from './local-file/module.js';
import { pkcs11Module } from './pkcs11/module.js';
import { vaultTransitModule } from './vault-transit/module.js';

/**
 * Every key store `serve`, the CLI and `createVault({ configFile })` know, one line each (and its
 * import above): the configuration merges their variables, VAULT_KEYSTORE accepts their names, the
 * composition root opens each configured one, in this order (`local` first: it is the default).
 * Adding a store is its folder plus its line here (docs/architecture.md, "Adding a key store").
 */
export const REGISTERED_KEY_STORES: readonly KeyStoreModule[] = [
  localFileModule,
  pkcs11Module,
  awsKmsModule,
  vaultTransitModule,
  azureKeyVaultModule,
  gcpKmsModule,
];
