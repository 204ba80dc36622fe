import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireDriver } from '../../optional-driver.js';
import { gcpKmsOptionsSchema, type GcpKmsKeyStoreOptions } from './options.js';

export type { GcpKmsKeyStoreOptions } from './options.js';

await requireDriver('@google-cloud/kms', 'keystores/gcp-kms');
const { GcpKmsKeyStore } = await import('./gcp-kms.key-store.js');

export type { GcpAuthClient, GcpKmsProtectionLevel } from './gcp-kms.key-store.js';

/** The `gcp-kms` key store (`wallet-vault/keystores/gcp-kms`; needs the optional package @google-cloud/kms). */
export function gcpKmsKeyStore(options: GcpKmsKeyStoreOptions): KeyStore {
  const { onRetry, ...config } = parseFactoryOptions('gcpKmsKeyStore', gcpKmsOptionsSchema, options);
  return new GcpKmsKeyStore({ ...config, ...(onRetry ? { retried: onRetry } : {}) });
}
