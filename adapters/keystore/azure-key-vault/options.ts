import type { TokenCredential } from '@azure/identity';
import { z } from 'zod';

/**
 * The `azure-key-vault` key store's options, written once: the factory checks them with this schema, their
 * type is its type, and `serve`'s variables (module.ts) take each field's rule from it. Imports only zod
 * (the SDK as a type), so the module can read it without loading the SDK.
 */
export const azureKeyVaultFields = {
  /** `https://<name>.vault.azure.net` or `https://<name>.managedhsm.azure.net`. */
  vaultUrl: z.url({ protocol: /^https?$/, error: 'must be the vault URL, https://<name>.vault.azure.net' }),
  /**
   * Who the store acts as: any @azure/identity credential (ManagedIdentityCredential,
   * WorkloadIdentityCredential, ClientSecretCredential, ...). Default: DefaultAzureCredential, which
   * reads AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET, AZURE_FEDERATED_TOKEN_FILE and the
   * managed identity endpoint of the host.
   */
  credential: z.custom<TokenCredential>((c) => typeof (c as { getToken?: unknown })?.getToken === 'function', 'must be a TokenCredential').optional(),
  /** `EC-HSM` (default; Premium vaults and Managed HSM) or `EC` (software keys; Standard vaults). */
  keyType: z.enum(['EC-HSM', 'EC'], { error: 'must be EC-HSM or EC' }).optional(),
  /** Bound on one attempt of one request (ms, default 5000). */
  requestTimeoutMs: z.int().min(1).optional(),
  /** Attempts of one operation, the first included, when Key Vault answers 429 or 5xx (default 4). */
  maxAttempts: z.int().min(1).max(10).optional(),
  /** First backoff without a Retry-After (ms, default 250, doubled per attempt, with jitter). */
  retryBaseDelayMs: z.int().min(0).optional(),
  /** The longest wait before a retry (ms, default 10000); a longer Retry-After fails at once. */
  maxRetryDelayMs: z.int().min(0).optional(),
  /** Called before each retry, with why (`throttled`: a 429; `unavailable`: a 5xx). */
  onRetry: z.custom<(reason: 'throttled' | 'unavailable') => void>((f) => typeof f === 'function', 'must be a function').optional(),
  /** The SDK's option of that name: accept a challenge for another domain than the vault's (private link with a custom domain). */
  disableChallengeResourceVerification: z.boolean().optional(),
  /**
   * Talk to Key Vault over http:// (default false: refused). The bearer token would cross the network in
   * clear: for a loopback stand-in only.
   */
  allowHttp: z.boolean().optional(),
};

export const azureKeyVaultOptionsSchema = z.strictObject(azureKeyVaultFields);

/** Options of the `azure-key-vault` key store (`wallet-vault/keystores/azure-key-vault`). */
export type AzureKeyVaultKeyStoreOptions = Readonly<z.input<typeof azureKeyVaultOptionsSchema>>;

/** What `serve` opens it with (VAULT_AZURE_*; docs/keystores.md#azure-key-vault); the credential is the SDK's (DefaultAzureCredential). */
export type AzureKeyVaultSettings = Required<Pick<AzureKeyVaultKeyStoreOptions, 'vaultUrl' | 'keyType' | 'allowHttp' | 'disableChallengeResourceVerification'>>;
