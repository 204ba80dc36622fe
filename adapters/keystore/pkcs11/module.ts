import { requireVariables, type KeyStoreModule } from '../key-store-module.js';
import { pkcs11OptionsSchema, type Pkcs11Settings } from './options.js';

export type { Pkcs11Settings } from './options.js';

const field = pkcs11OptionsSchema.shape;

/** The `pkcs11` key store as the configuration sees it: configured by VAULT_KEYSTORE=pkcs11 or VAULT_PKCS11_MODULE. */
export const pkcs11Module: KeyStoreModule<Pkcs11Settings> = {
  name: 'pkcs11',
  docsAnchor: 'pkcs11',
  environment: {
    VAULT_PKCS11_MODULE: field.modulePath.optional(),
    VAULT_PKCS11_TOKEN: field.tokenLabel.optional(),
    VAULT_PKCS11_PIN: field.pin.optional(),
  },
  settings(env, selected) {
    if (!selected && env.VAULT_PKCS11_MODULE === undefined) return undefined;
    requireVariables(env, ['VAULT_PKCS11_MODULE', 'VAULT_PKCS11_TOKEN', 'VAULT_PKCS11_PIN'], 'pkcs11');
    return { modulePath: env.VAULT_PKCS11_MODULE as string, tokenLabel: env.VAULT_PKCS11_TOKEN as string, pin: env.VAULT_PKCS11_PIN as string };
  },
  // The factory an application calls (index.ts), loaded only here: it loads pkcs11js, or names it when missing.
  async open(settings) {
    return (await import('./index.js')).pkcs11KeyStore(settings);
  },
};
