import { randomBytes, randomUUID } from 'node:crypto';
import { toChecksumAddress } from '../../src/domain/address.js';
import type { ApiKeyRecord, Vault } from '../../src/domain/vault.js';
import type { Wallet } from '../../src/domain/wallet.js';

export const randomAddress = () => toChecksumAddress(`0x${randomBytes(20).toString('hex')}`);

export function aVault(overrides: Partial<Vault> = {}): Vault {
  return { id: randomUUID(), accountId: 'acct', name: 'vault', created: new Date('2026-01-01T00:00:00Z'), ...overrides };
}

export function aWallet(vault: Vault, overrides: Partial<Wallet> = {}): Wallet {
  const address = overrides.address ?? randomAddress();
  const created = overrides.created ?? new Date('2026-01-01T00:00:00Z');
  return {
    id: randomUUID(),
    accountId: vault.accountId,
    vaultId: vault.id,
    name: 'wallet',
    address,
    keyStore: 'local',
    keyRef: address.toLowerCase(),
    created,
    updated: created,
    expires: null,
    version: 1,
    ...overrides,
  };
}

export function anApiKey(vault: Vault, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: randomBytes(8).toString('hex'),
    vaultId: vault.id,
    secretHash: randomBytes(32).toString('hex'),
    created: new Date('2026-01-01T00:00:00Z'),
    revoked: null,
    ...overrides,
  };
}
