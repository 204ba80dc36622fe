import { randomBytes, randomUUID } from 'node:crypto';
import { toChecksumAddress } from '../../src/domain/address.js';
import { ALL_ROLES } from '../../src/domain/api-key-access.js';
import type { ApiKeyRecord, Vault } from '../../src/domain/vault.js';
import type { Wallet } from '../../src/domain/wallet.js';
import type { SignatureRecord } from '../../src/ports/signature-log.port.js';
import type { AuditEvent } from '../../src/ports/audit-log.port.js';
import type { IdempotencyRecord } from '../../src/ports/wallet-repository.port.js';

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
    binding: null,
    derivationPath: null,
    exported: null,
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
    roles: ALL_ROLES,
    allowCidrs: null,
    ...overrides,
  };
}

/** The i-th of a run of distinct signature records (same vault and wallet). */
export function aSignatureRecord(i: number, overrides: Partial<SignatureRecord> = {}): SignatureRecord {
  return {
    submissionHash: `0x${i.toString(16).padStart(64, '0')}`,
    vaultId: 'v',
    walletId: 'w',
    walletAddress: '0x0000000000000000000000000000000000000001',
    chain: 'local',
    contract: '0x0000000000000000000000000000000000000002',
    sender: '0x0000000000000000000000000000000000000003',
    selector: '0x12345678',
    created: new Date('2026-01-01T00:00:00Z'),
    transactionHash: null,
    submitted: null,
    ...overrides,
  };
}

/** An idempotency record created at `created` (default 2026-01-01) and kept for 24 hours. */
export function anIdempotencyRecord(vault: Vault, overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  const created = overrides.created ?? new Date('2026-01-01T00:00:00Z');
  return {
    vaultId: vault.id,
    key: randomUUID(),
    requestHash: randomBytes(32).toString('hex'),
    response: JSON.stringify({ success: true, id: randomUUID() }),
    created,
    expires: new Date(created.getTime() + 24 * 60 * 60 * 1000),
    ...overrides,
  };
}

export function anAuditEvent(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    action: 'wallet.created',
    at: new Date('2026-01-01T00:00:00Z'),
    actor: 'system',
    vaultId: null,
    subject: null,
    details: {},
    ...overrides,
  };
}
