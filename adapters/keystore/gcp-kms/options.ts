import type { KeyManagementServiceClient } from '@google-cloud/kms';
import { z } from 'zod';
import type { GcpAuthClient } from './gcp-kms.key-store.js';
import { KEY_RING_NAME } from './key-ring.js';

/**
 * The `gcp-kms` key store's options, written once: the factory checks them with this schema, their type is
 * its type, and `serve`'s variables (module.ts) take each field's rule from it. Imports only zod (the SDK
 * as a type), so the module can read it without loading the SDK.
 */
export const gcpKmsFields = {
  /** `projects/PROJECT/locations/LOCATION/keyRings/KEY_RING`: where the store creates one CryptoKey per wallet. */
  keyRing: z.string().regex(KEY_RING_NAME, 'must be projects/PROJECT/locations/LOCATION/keyRings/KEY_RING'),
  /** Where keys are generated (default HSM; SOFTWARE for trials). */
  protectionLevel: z.enum(['HSM', 'SOFTWARE']).optional(),
  /** Attempts of a request Cloud KMS refused for quota (429) or briefly failed, including the first (default 4). */
  maxAttempts: z.int().min(1).max(10).optional(),
  /** Told of each such retry, with why (`throttled`: a 429; `unavailable`: a 503, a deadline, a reset connection). */
  onRetry: z.custom<(reason: 'throttled' | 'unavailable') => void>((f) => typeof f === 'function', 'must be a function').optional(),
  /** Used as is: its transport (gRPC or REST), endpoint and credentials; not with the five fields below. */
  client: z.custom<KeyManagementServiceClient>((c) => typeof (c as { asymmetricSign?: unknown })?.asymmetricSign === 'function', 'must be a KeyManagementServiceClient').optional(),
  /** A Cloud KMS endpoint other than cloudkms.googleapis.com (a private endpoint), as `https://host[:port]`. */
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
  /** A service account's key instead of the application default credentials. */
  credentials: z.strictObject({ client_email: z.string().min(1), private_key: z.string().min(1) }).optional(),
  /** A service account key file instead of the application default credentials. */
  keyFilename: z.string().min(1).optional(),
  /** An authenticated google-auth-library client (GoogleAuth's getClient(), an OAuth2Client, ...). */
  authClient: z.custom<GcpAuthClient>((c) => typeof (c as { getRequestHeaders?: unknown })?.getRequestHeaders === 'function', 'must be a google-auth-library client').optional(),
  /** Per-request timeout (ms, default 5000). */
  requestTimeoutMs: z.int().min(1).optional(),
};

const CONNECTION = ['endpoint', 'credentials', 'keyFilename', 'authClient', 'requestTimeoutMs'] as const;

export const gcpKmsOptionsSchema = z.strictObject(gcpKmsFields).superRefine((o, ctx) => {
  for (const field of CONNECTION) {
    if (o.client !== undefined && o[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'not with client (the client brings its own)' });
  }
  if ([o.credentials, o.keyFilename, o.authClient].filter((x) => x !== undefined).length > 1) {
    ctx.addIssue({ code: 'custom', path: [], message: 'give at most one of credentials, keyFilename and authClient' });
  }
});

/**
 * Options of the `gcp-kms` key store: a key ring, and how to reach Cloud KMS: application default
 * credentials (the default), a service account's key, an auth client you already have, or a whole
 * KeyManagementServiceClient you configured yourself.
 */
export type GcpKmsKeyStoreOptions = Readonly<z.input<typeof gcpKmsOptionsSchema>>;

/** What `serve` opens it with (VAULT_GCP_KMS_*; docs/keystores.md#gcp-kms). Credentials are Google's application default credentials. */
export type GcpKmsSettings = Pick<GcpKmsKeyStoreOptions, 'keyRing' | 'endpoint' | 'protectionLevel'>;
