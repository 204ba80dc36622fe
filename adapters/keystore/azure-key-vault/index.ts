import type { KeyStore } from '../../../src/ports/key-store.port.js';
import { parseFactoryOptions } from '../../factory-options.js';
import { requireDriver } from '../../optional-driver.js';
import { azureKeyVaultOptionsSchema, type AzureKeyVaultKeyStoreOptions } from './options.js';

export type { AzureKeyVaultKeyStoreOptions } from './options.js';

await requireDriver('@azure/keyvault-keys', 'keystores/azure-key-vault');
await requireDriver('@azure/identity', 'keystores/azure-key-vault');
const { AzureKeyVaultKeyStore } = await import('./azure-key-vault.key-store.js');
const { DefaultAzureCredential } = await import('@azure/identity');

/** The `azure-key-vault` key store (needs the optional packages @azure/keyvault-keys and @azure/identity). */
export function azureKeyVaultKeyStore(options: AzureKeyVaultKeyStoreOptions): KeyStore {
  const { allowHttp, credential, ...o } = parseFactoryOptions('azureKeyVaultKeyStore', azureKeyVaultOptionsSchema, options);
  if (/^http:/i.test(o.vaultUrl) && allowHttp !== true) {
    throw new TypeError(
      'invalid azureKeyVaultKeyStore options:\n  vaultUrl: http:// would send the Azure access token in clear; use https://, or pass allowHttp: true for a loopback stand-in',
    );
  }
  return new AzureKeyVaultKeyStore({ ...o, allowInsecureConnection: allowHttp === true, credential: credential ?? new DefaultAzureCredential() });
}
