import type { KMSClient } from '@aws-sdk/client-kms';
import { z } from 'zod';
import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireDriver } from '../../optional-driver.js';

await requireDriver('@aws-sdk/client-kms', 'keystores/aws-kms');
const { AwsKmsKeyStore } = await import('./aws-kms.key-store.js');

/** Options of the `aws-kms` key store: settings for a client it makes, or a client you already have. */
export type AwsKmsKeyStoreOptions =
  | {
      /** e.g. eu-west-1; default: the SDK's chain (AWS_REGION). */
      readonly region?: string;
      /** A KMS-compatible endpoint (LocalStack, a VPC endpoint). */
      readonly endpoint?: string;
      /** Default: the SDK's credential chain. */
      readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
      /** Per-request timeout (ms, default 5000). */
      readonly requestTimeoutMs?: number;
      /** SDK attempts including retries (default 3). */
      readonly maxAttempts?: number;
      /**
       * Told each time the SDK retries a request (for a metric): `throttled` after the service's quota
       * refusal (HTTP 429), `unavailable` after a brief failure (5xx, a timeout, a reset connection).
       */
      readonly onRetry?: (reason: 'throttled' | 'unavailable') => void;
      readonly client?: never;
    }
  | { /** Used as is: its region, credentials, retries and timeouts. */ readonly client: KMSClient };

const schema = z.union([
  z.strictObject({ client: z.custom<KMSClient>((c) => typeof (c as { send?: unknown })?.send === 'function', 'must be a KMSClient') }),
  z.strictObject({
    region: z.string().min(1).optional(),
    endpoint: z.url().optional(),
    credentials: z
      .strictObject({ accessKeyId: z.string().min(1), secretAccessKey: z.string().min(1), sessionToken: z.string().optional() })
      .optional(),
    requestTimeoutMs: z.int().min(1).optional(),
    maxAttempts: z.int().min(1).optional(),
    onRetry: z.custom<(reason: 'throttled' | 'unavailable') => void>((f) => typeof f === 'function', 'must be a function').optional(),
  }),
]);

/** The `aws-kms` key store (`wallet-vault/keystores/aws-kms`; needs the optional package @aws-sdk/client-kms). */
export function awsKmsKeyStore(options: AwsKmsKeyStoreOptions): KeyStore {
  return new AwsKmsKeyStore(parseFactoryOptions('awsKmsKeyStore', schema, options));
}
