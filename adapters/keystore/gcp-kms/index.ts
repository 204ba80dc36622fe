import type { KeyManagementServiceClient } from '@google-cloud/kms';
import { z } from 'zod';
import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireDriver } from '../../optional-driver.js';
import type { GcpAuthClient, GcpKmsProtectionLevel } from './gcp-kms.key-store.js';
import { KEY_RING_NAME } from './key-ring.js';

await requireDriver('@google-cloud/kms', 'keystores/gcp-kms');
const { GcpKmsKeyStore } = await import('./gcp-kms.key-store.js');

export type { GcpAuthClient, GcpKmsProtectionLevel } from './gcp-kms.key-store.js';

interface KeyRingOptions {
  /** `projects/PROJECT/locations/LOCATION/keyRings/KEY_RING`: where the store creates one CryptoKey per wallet. */
  readonly keyRing: string;
  /** Where keys are generated (default HSM; SOFTWARE for trials). */
  readonly protectionLevel?: GcpKmsProtectionLevel;
  /** Attempts of a request Cloud KMS refused for quota (429) or briefly failed, including the first (default 4). */
  readonly maxAttempts?: number;
  /** Told of each such retry, with why (`throttled`: a 429; `unavailable`: a 503, a deadline, a reset connection). */
  readonly onRetry?: (reason: 'throttled' | 'unavailable') => void;
}

/**
 * Options of the `gcp-kms` key store: a key ring, and how to reach Cloud KMS: application default
 * credentials (the default), a service account's key, an auth client you already have, or a whole
 * KeyManagementServiceClient you configured yourself.
 */
export type GcpKmsKeyStoreOptions = KeyRingOptions &
  (
    | {
        /** A Cloud KMS endpoint other than cloudkms.googleapis.com (a private endpoint), as `https://host[:port]`. */
        readonly endpoint?: string;
        /** A service account's key instead of the application default credentials. */
        readonly credentials?: { readonly client_email: string; readonly private_key: string };
        /** A service account key file instead of the application default credentials. */
        readonly keyFilename?: string;
        /** An authenticated google-auth-library client (GoogleAuth's getClient(), an OAuth2Client, ...). */
        readonly authClient?: GcpAuthClient;
        /** Per-request timeout (ms, default 5000). */
        readonly requestTimeoutMs?: number;
        readonly client?: never;
      }
    | { /** Used as is: its transport (gRPC or REST), endpoint and credentials. */ readonly client: KeyManagementServiceClient }
  );

const CONNECTION = ['endpoint', 'credentials', 'keyFilename', 'authClient', 'requestTimeoutMs'] as const;
const schema = z
  .strictObject({
    keyRing: z.string().regex(KEY_RING_NAME, 'must be projects/PROJECT/locations/LOCATION/keyRings/KEY_RING'),
    protectionLevel: z.enum(['HSM', 'SOFTWARE']).optional(),
    maxAttempts: z.int().min(1).max(10).optional(),
    onRetry: z.custom<(reason: 'throttled' | 'unavailable') => void>((f) => typeof f === 'function', 'must be a function').optional(),
    client: z.custom<KeyManagementServiceClient>((c) => typeof (c as { asymmetricSign?: unknown })?.asymmetricSign === 'function', 'must be a KeyManagementServiceClient').optional(),
    endpoint: z.url({ protocol: /^https?$/ }).optional(),
    credentials: z.strictObject({ client_email: z.string().min(1), private_key: z.string().min(1) }).optional(),
    keyFilename: z.string().min(1).optional(),
    authClient: z.custom<GcpAuthClient>((c) => typeof (c as { getRequestHeaders?: unknown })?.getRequestHeaders === 'function', 'must be a google-auth-library client').optional(),
    requestTimeoutMs: z.int().min(1).optional(),
  })
  .superRefine((o, ctx) => {
    for (const field of CONNECTION) {
      if (o.client !== undefined && o[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'not with client (the client brings its own)' });
    }
    if ([o.credentials, o.keyFilename, o.authClient].filter((x) => x !== undefined).length > 1) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give at most one of credentials, keyFilename and authClient' });
    }
  });

/** The `gcp-kms` key store (`wallet-vault/keystores/gcp-kms`; needs the optional package @google-cloud/kms). */
export function gcpKmsKeyStore(options: GcpKmsKeyStoreOptions): KeyStore {
  const { onRetry, ...config } = parseFactoryOptions('gcpKmsKeyStore', schema, options);
  return new GcpKmsKeyStore({ ...config, ...(onRetry ? { retried: onRetry } : {}) });
}
