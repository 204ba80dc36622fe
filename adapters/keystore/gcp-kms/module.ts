import { z } from 'zod';
import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { requireDriver } from '../../optional-driver.js';
import { KeyStoreSettingsError, type KeyStoreModule } from '../key-store-module.js';
import { KEY_RING_NAME } from './key-ring.js';

/** The `gcp-kms` store's settings from the environment. Credentials are Google's application default credentials. */
export interface GcpKmsSettings {
  /** VAULT_GCP_KMS_KEY_RING: `projects/P/locations/L/keyRings/R`. */
  readonly keyRing: string;
  /** VAULT_GCP_KMS_ENDPOINT: a private endpoint, or a test server. */
  readonly endpoint?: string;
  /** VAULT_GCP_KMS_PROTECTION_LEVEL: HSM (default) or SOFTWARE. */
  readonly protectionLevel?: 'HSM' | 'SOFTWARE';
}


/** Google Cloud KMS (`VAULT_KEYSTORE=gcp-kms`): EC_SIGN_SECP256K1_SHA256 keys, HSM-protected by default. */
export const gcpKmsModule: KeyStoreModule<GcpKmsSettings> = {
  name: 'gcp-kms',
  environment: {
    VAULT_GCP_KMS_KEY_RING: z.string().regex(KEY_RING_NAME, 'must be projects/PROJECT/locations/LOCATION/keyRings/KEY_RING').optional(),
    VAULT_GCP_KMS_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
    VAULT_GCP_KMS_PROTECTION_LEVEL: z.enum(['HSM', 'SOFTWARE']).optional(),
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
