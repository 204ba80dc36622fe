import type { KMSClient } from '@aws-sdk/client-kms';
import { z } from 'zod';

/**
 * The `aws-kms` key store's options, written once: the factory checks them with this schema and their type
 * is its type; `serve`'s settings (module.ts) are a part of them. Imports only zod (the SDK as a type), so
 * the module can read it without loading the SDK.
 */
const withSettings = z.strictObject({
  /** e.g. eu-west-1; default: the SDK's chain (AWS_REGION). */
  region: z.string().min(1).optional(),
  /** A KMS-compatible endpoint (LocalStack, a VPC endpoint). */
  endpoint: z.url().optional(),
  /** Default: the SDK's credential chain. */
  credentials: z.strictObject({ accessKeyId: z.string().min(1), secretAccessKey: z.string().min(1), sessionToken: z.string().optional() }).optional(),
  /** Per-request timeout (ms, default 5000). */
  requestTimeoutMs: z.int().min(1).optional(),
  /** SDK attempts including retries (default 3). */
  maxAttempts: z.int().min(1).optional(),
  /**
   * Told each time the SDK retries a request (for a metric): `throttled` after the service's quota
   * refusal (HTTP 429), `unavailable` after a brief failure (5xx, a timeout, a reset connection).
   */
  onRetry: z.custom<(reason: 'throttled' | 'unavailable') => void>((f) => typeof f === 'function', 'must be a function').optional(),
});

const withClient = z.strictObject({
  /** Used as is: its region, credentials, retries and timeouts. */
  client: z.custom<KMSClient>((c) => typeof (c as { send?: unknown })?.send === 'function', 'must be a KMSClient'),
});

export const awsKmsOptionsSchema = z.union([withClient, withSettings]);

/** Options of the `aws-kms` key store: settings for a client it makes, or a client you already have. */
export type AwsKmsKeyStoreOptions = Readonly<z.input<typeof withSettings> & { client?: never }> | Readonly<z.input<typeof withClient>>;

type SettingsPart = z.input<typeof withSettings>;

/** What `serve` opens it with (docs/keystores.md#aws-kms); credentials come from the SDK's default chain unless both keys are given. */
export type AwsKmsSettings = { readonly [K in 'region' | 'endpoint' | 'credentials']: SettingsPart[K] | undefined };
