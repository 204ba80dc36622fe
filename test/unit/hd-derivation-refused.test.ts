import { describe, expect, it } from 'vitest';
import { CreateWallet } from '../../src/application/wallets/create-wallet.use-case.js';
import { MapKeyStoreRegistry } from '../../src/application/keys/key-store-registry.js';
import { ALL_ROLES } from '../../src/domain/api-key-access.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { InMemoryAuditLog, InMemoryWalletRepository } from '../support/in-memory.persistence.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { FixedClock } from '../support/movable-clock.js';
import { aVault } from '../support/wallet-mother.js';
import { bindingsOver } from '../support/wallet-bindings.js';

/** A store whose keys never leave it (KMS, an HSM, a remote signer) has no deriveKey: a derived wallet is refused naming the field and the store. */
describe('a derived wallet in a store that cannot derive', () => {
  it('is refused 400 naming `derivation` and the store; no index is reserved and no key created', async () => {
    const repo = new InMemoryWalletRepository();
    const store = new InMemoryKeyStore('aws-kms');
    const clock = new FixedClock(new Date('2026-05-01T00:00:00Z'));
    const auditLog = new InMemoryAuditLog();
    const vault = aVault();
    await repo.ensureAccount(vault.accountId, clock.now());
    await repo.insertVault(vault);
    const registry = new MapKeyStoreRegistry([store], 'aws-kms');
    let n = 0;
    const ids = { next: () => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}` };
    const create = new CreateWallet(repo, registry, bindingsOver(registry, auditLog, clock), clock, ids, auditLog);
    const principal = { apiKeyId: '0123456789abcdef', vaultId: vault.id, roles: ALL_ROLES };
    const refused = create.execute({ principal, name: 'hd', derivation: 'hd' });
    await expect(refused).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, message: expect.stringMatching(/^derivation: key store aws-kms cannot derive HD wallets/) });
    expect(await repo.reserveDerivationIndex(vault.id)).toBe(0);
    expect((await repo.listWallets(vault.id, clock.now(), 0, 10)).count).toBe(0);
  });
});
