import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireDriver } from '../../optional-driver.js';
import { awsKmsOptionsSchema, type AwsKmsKeyStoreOptions } from './options.js';

export type { AwsKmsKeyStoreOptions } from './options.js';

await requireDriver('@aws-sdk/client-kms', 'keystores/aws-kms');
const { AwsKmsKeyStore } = await import('./aws-kms.key-store.js');

/** The `aws-kms` key store (`wallet-vault/keystores/aws-kms`; needs the optional package @aws-sdk/client-kms). */
export function awsKmsKeyStore(options: AwsKmsKeyStoreOptions): KeyStore {
  return new AwsKmsKeyStore(parseFactoryOptions('awsKmsKeyStore', awsKmsOptionsSchema, options));
}
