import type { TokenCredential } from '@azure/identity';
import { z } from 'zod';
import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireDriver } from '../../optional-driver.js';

await requireDriver('@azure/keyvault-keys', 'keystores/azure-key-vault');
await requireDriver('@azure/identity', 'keystores/azure-key-vault');
const { AzureKeyVaultKeyStore } = await import('./azure-key-vault.key-store.js');
const { DefaultAzureCredential } = await import('@azure/identity');

/** Options of the `azure-key-vault` key store (`wallet-vault/keystores/azure-key-vault`). */
export interface AzureKeyVaultKeyStoreOptions {
  /** `https://<name>.vault.azure.net` or `https://<name>.managedhsm.azure.net`. */
  readonly vaultUrl: string;
  /**
   * Who the store acts as: any @azure/identity credential (ManagedIdentityCredential,
   * WorkloadIdentityCredential, ClientSecretCredential, ...). Default: DefaultAzureCredential, which
   * reads AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET, AZURE_FEDERATED_TOKEN_FILE and the
   * managed identity endpoint of the host.
   */
  readonly credential?: TokenCredential;
  /** `EC-HSM` (default; Premium vaults and Managed HSM) or `EC` (software keys; Standard vaults). */
  readonly keyType?: 'EC' | 'EC-HSM';
  /** Bound on one attempt of one request (ms, default 5000). */
  readonly requestTimeoutMs?: number;
  /** Attempts of one operation, the first included, when Key Vault answers 429 or 5xx (default 4). */
  readonly maxAttempts?: number;
  /** First backoff without a Retry-After (ms, default 250, doubled per attempt, with jitter). */
  readonly retryBaseDelayMs?: number;
  /** The longest wait before a retry (ms, default 10000); a longer Retry-After fails at once. */
  readonly maxRetryDelayMs?: number;
  /** Called before each retry, with why (`throttled`: a 429; `unavailable`: a 5xx). */
  readonly onRetry?: (reason: 'throttled' | 'unavailable') => void;
  /** The SDK's option of that name: accept a challenge for another domain than the vault's (private link with a custom domain). */
  readonly disableChallengeResourceVerification?: boolean;
  /**
   * Talk to Key Vault over http:// (default false: refused). The bearer token would cross the network in
   * clear: for a loopback stand-in only.
   */
  readonly allowHttp?: boolean;
}

const schema = z.strictObject({
  vaultUrl: z.url({ protocol: /^https?$/ }),
  credential: z.custom<TokenCredential>((c) => typeof (c as { getToken?: unknown })?.getToken === 'function', 'must be a TokenCredential').optional(),
  keyType: z.enum(['EC', 'EC-HSM']).optional(),
  requestTimeoutMs: z.int().min(1).optional(),
  maxAttempts: z.int().min(1).max(10).optional(),
  retryBaseDelayMs: z.int().min(0).optional(),
  maxRetryDelayMs: z.int().min(0).optional(),
  onRetry: z.custom<(reason: 'throttled' | 'unavailable') => void>((f) => typeof f === 'function', 'must be a function').optional(),
  disableChallengeResourceVerification: z.boolean().optional(),
  allowHttp: z.boolean().optional(),
});

/** The `azure-key-vault` key store (needs the optional packages @azure/keyvault-keys and @azure/identity). */
export function azureKeyVaultKeyStore(options: AzureKeyVaultKeyStoreOptions): KeyStore {
  const { allowHttp, credential, ...o } = parseFactoryOptions('azureKeyVaultKeyStore', schema, options);
  if (/^http:/i.test(o.vaultUrl) && allowHttp !== true) {
    throw new TypeError(
      'invalid azureKeyVaultKeyStore options:\n  vaultUrl: http:// would send the Azure access token in clear; use https://, or pass allowHttp: true for a loopback stand-in',
    );
  }
  return new AzureKeyVaultKeyStore({ ...o, allowInsecureConnection: allowHttp === true, credential: credential ?? new DefaultAzureCredential() });
}
