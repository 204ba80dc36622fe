import { z } from 'zod';
import { httpUrlVariable } from '../../environment-variables.js';
import { KeyStoreSettingsError, type KeyStoreModule } from '../key-store-module.js';
import type { AwsKmsSettings } from './options.js';

export type { AwsKmsSettings } from './options.js';

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The `aws-kms` key store as the configuration sees it: configured by VAULT_KEYSTORE=aws-kms, or
 * VAULT_KMS_ENDPOINT or a region (AWS_REGION, else AWS_DEFAULT_REGION) set.
 */
export const awsKmsModule: KeyStoreModule<AwsKmsSettings> = {
  name: 'aws-kms',
  docsAnchor: 'aws-kms',
  environment: {
    VAULT_KMS_ENDPOINT: httpUrlVariable.optional(),
    AWS_REGION: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as eu-west-1').optional(),
    AWS_DEFAULT_REGION: z.string().optional(),
    AWS_ACCESS_KEY_ID: z.string().optional(),
    AWS_SECRET_ACCESS_KEY: z.string().optional(),
    AWS_SESSION_TOKEN: z.string().optional(),
  },
  settings(env, selected) {
    const region = text(env.AWS_REGION) ?? text(env.AWS_DEFAULT_REGION);
    const endpoint = text(env.VAULT_KMS_ENDPOINT);
    if (!selected && endpoint === undefined && region === undefined) return undefined;
    if (region === undefined) throw new KeyStoreSettingsError('AWS_REGION', 'required for the aws-kms key store');
    const accessKeyId = text(env.AWS_ACCESS_KEY_ID);
    const secretAccessKey = text(env.AWS_SECRET_ACCESS_KEY);
    const sessionToken = text(env.AWS_SESSION_TOKEN);
    return {
      region,
      endpoint,
      // One key without the other: the SDK's own chain, not half a credential.
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } : undefined,
    };
  },
  // The factory an application calls (index.ts), loaded only here: it loads the AWS SDK, or names it when missing.
  async open({ region, endpoint, credentials }, context) {
    const { awsKmsKeyStore } = await import('./index.js');
    const { retried } = context;
    return awsKmsKeyStore({
      region,
      endpoint,
      credentials,
      requestTimeoutMs: context.requestTimeoutMs,
      ...(retried ? { onRetry: (reason) => retried('aws-kms', reason) } : {}),
    });
  },
};
