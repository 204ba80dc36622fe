import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { requireDriver } from '../../optional-driver.js';
import { KeyStoreSettingsError, type KeyStoreModule } from '../key-store-module.js';
import { gcpKmsFields, type GcpKmsSettings } from './options.js';

export type { GcpKmsSettings } from './options.js';

/** Google Cloud KMS (`VAULT_KEYSTORE=gcp-kms`): EC_SIGN_SECP256K1_SHA256 keys, HSM-protected by default. */
export const gcpKmsModule: KeyStoreModule<GcpKmsSettings> = {
  name: 'gcp-kms',
  environment: {
    VAULT_GCP_KMS_KEY_RING: gcpKmsFields.keyRing.optional(),
    VAULT_GCP_KMS_ENDPOINT: gcpKmsFields.endpoint,
    VAULT_GCP_KMS_PROTECTION_LEVEL: gcpKmsFields.protectionLevel,
  },
  settings(environment, selected) {
    const keyRing = environment.VAULT_GCP_KMS_KEY_RING as string | undefined;
    const endpoint = environment.VAULT_GCP_KMS_ENDPOINT as string | undefined;
    const protectionLevel = environment.VAULT_GCP_KMS_PROTECTION_LEVEL as GcpKmsSettings['protectionLevel'];
    if (!selected && keyRing === undefined && endpoint === undefined && protectionLevel === undefined) return undefined;
    if (keyRing === undefined) {
      throw new KeyStoreSettingsError('VAULT_GCP_KMS_KEY_RING', 'required for the gcp-kms key store (projects/PROJECT/locations/LOCATION/keyRings/KEY_RING)');
    }
    return { keyRing, ...(endpoint ? { endpoint } : {}), ...(protectionLevel ? { protectionLevel } : {}) };
  },
  async open(settings, context): Promise<KeyStore> {
    await requireDriver('@google-cloud/kms', 'keystores/gcp-kms');
    const { GcpKmsKeyStore } = await import('./gcp-kms.key-store.js');
    return new GcpKmsKeyStore({
      ...settings,
      requestTimeoutMs: context.requestTimeoutMs,
      ...(context.retried ? { retried: (reason) => context.retried!('gcp-kms', reason) } : {}),
    });
  },
  docsAnchor: 'gcp-kms',
};
