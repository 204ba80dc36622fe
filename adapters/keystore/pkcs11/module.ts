import { z } from 'zod';
import { requireVariables, type KeyStoreModule } from '../key-store-module.js';

/** PKCS#11 settings of `serve` (docs/keystores.md#pkcs11). */
export interface Pkcs11Settings {
  readonly modulePath: string;
  readonly tokenLabel: string;
  readonly pin: string;
}

/** The `pkcs11` key store as the configuration sees it: configured by VAULT_KEYSTORE=pkcs11 or VAULT_PKCS11_MODULE. */
export const pkcs11Module: KeyStoreModule<Pkcs11Settings> = {
  name: 'pkcs11',
  docsAnchor: 'pkcs11',
  environment: {
    VAULT_PKCS11_MODULE: z.string().min(1).optional(),
    VAULT_PKCS11_TOKEN: z.string().min(1).max(32, 'must be at most 32 characters (a PKCS#11 token label)').optional(),
    VAULT_PKCS11_PIN: z.string().min(1).optional(),
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
