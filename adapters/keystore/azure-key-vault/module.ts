import { z } from 'zod';
import type { KeyStoreModule } from '../key-store-module.js';
import { KeyStoreSettingsError } from '../key-store-module.js';
import { azureKeyVaultFields, type AzureKeyVaultSettings } from './options.js';

export type { AzureKeyVaultSettings } from './options.js';

const flag = z.enum(['true', 'false'], { error: 'must be true or false' });

/**
 * `VAULT_KEYSTORE=azure-key-vault`. Azure's own variables (AZURE_TENANT_ID, AZURE_CLIENT_ID,
 * AZURE_CLIENT_SECRET, AZURE_FEDERATED_TOKEN_FILE, the managed identity endpoint) are read by
 * DefaultAzureCredential, not here. The store opens when VAULT_KEYSTORE names it or
 * VAULT_AZURE_KEY_VAULT_URL is set.
 */
export const azureKeyVaultModule: KeyStoreModule<AzureKeyVaultSettings> = {
  name: 'azure-key-vault',
  docsAnchor: 'azure-key-vault',
  environment: {
    VAULT_AZURE_KEY_VAULT_URL: azureKeyVaultFields.vaultUrl.optional(),
    VAULT_AZURE_KEY_TYPE: azureKeyVaultFields.keyType,
    VAULT_AZURE_KEY_VAULT_ALLOW_HTTP: flag.optional(),
    VAULT_AZURE_DISABLE_CHALLENGE_RESOURCE_VERIFICATION: flag.optional(),
  },
  settings(environment, selected) {
    const url = environment.VAULT_AZURE_KEY_VAULT_URL as string | undefined;
    if (!selected && url === undefined) return undefined;
    if (url === undefined) throw new KeyStoreSettingsError('VAULT_AZURE_KEY_VAULT_URL', 'required for the azure-key-vault key store');
    const allowHttp = environment.VAULT_AZURE_KEY_VAULT_ALLOW_HTTP === 'true';
    if (new URL(url).protocol === 'http:' && !allowHttp) {
      throw new KeyStoreSettingsError(
        'VAULT_AZURE_KEY_VAULT_URL',
        'http:// would send the Azure access token in clear; use https://, or set VAULT_AZURE_KEY_VAULT_ALLOW_HTTP=true for a loopback stand-in',
      );
    }
    return {
      vaultUrl: url,
      keyType: (environment.VAULT_AZURE_KEY_TYPE as 'EC' | 'EC-HSM' | undefined) ?? 'EC-HSM',
      allowHttp,
      disableChallengeResourceVerification: environment.VAULT_AZURE_DISABLE_CHALLENGE_RESOURCE_VERIFICATION === 'true',
    };
  },
  async open(settings, context) {
    const { azureKeyVaultKeyStore } = await import('./index.js');
    return azureKeyVaultKeyStore({
      ...settings,
      requestTimeoutMs: context.requestTimeoutMs,
      onRetry: context.retried && ((reason) => context.retried!('azure-key-vault', reason)),
    });
  },
};
