import { z } from 'zod';
import { httpUrlVariable, trueOrFalseVariable, wholeNumberVariable } from '../../environment-variables.js';
import { KeyStoreSettingsError, requireVariables, type KeyStoreModule } from '../key-store-module.js';
import { transitKeyFields, type VaultTransitSettings } from './options.js';

export type { VaultTransitSettings } from './options.js';

/** The `vault-transit` key store as the configuration sees it: configured by VAULT_KEYSTORE=vault-transit or VAULT_TRANSIT_KEY. */
export const vaultTransitModule: KeyStoreModule<VaultTransitSettings> = {
  name: 'vault-transit',
  docsAnchor: 'vault-transit',
  environment: {
    VAULT_ADDR: httpUrlVariable.optional(),
    VAULT_TOKEN: z.string().optional(),
    VAULT_TRANSIT_MOUNT: transitKeyFields.mount.default('transit'),
    VAULT_TRANSIT_KEY: transitKeyFields.keyName.optional(),
    VAULT_TRANSIT_CACHE_SECONDS: wholeNumberVariable(0, 86_400).default(0),
    VAULT_TRANSIT_ALLOW_HTTP: trueOrFalseVariable.default('false'),
  },
  settings(env, selected) {
    if (!selected && env.VAULT_TRANSIT_KEY === undefined) return undefined;
    requireVariables(env, ['VAULT_ADDR', 'VAULT_TOKEN', 'VAULT_TRANSIT_KEY'], 'vault-transit');
    const address = env.VAULT_ADDR as string;
    const allowHttp = env.VAULT_TRANSIT_ALLOW_HTTP === 'true';
    // The token and every wrapped key travel to Vault: in clear over http, unless the operator says so.
    if (new URL(address).protocol === 'http:' && !allowHttp) {
      throw new KeyStoreSettingsError(
        'VAULT_ADDR',
        'http:// would send the Vault token and every wallet key Vault unwraps in clear; use https://, or set VAULT_TRANSIT_ALLOW_HTTP=true for a loopback or otherwise trusted network',
      );
    }
    return {
      address,
      token: env.VAULT_TOKEN as string,
      mount: env.VAULT_TRANSIT_MOUNT as string,
      keyName: env.VAULT_TRANSIT_KEY as string,
      cacheTtlMs: (env.VAULT_TRANSIT_CACHE_SECONDS as number) * 1000,
      allowHttp,
    };
  },
  // The factory an application calls (index.ts), loaded only here: it loads node-vault, or names it when missing.
  async open(settings, context) {
    const { vaultTransitKeyStore } = await import('./index.js');
    return vaultTransitKeyStore({ ...settings, requestTimeoutMs: context.requestTimeoutMs, signingThread: context.signingThread });
  },
};
