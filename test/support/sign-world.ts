import { ALL_ROLES } from '../../src/domain/api-key-access.js';
import { MapKeyStoreRegistry } from '../../src/application/keys/key-store-registry.js';
import { ManageVaults } from '../../src/application/vaults/manage-vaults.use-case.js';
import { InMemoryAuditLog, InMemoryWalletRepository } from './in-memory.persistence.js';
import { InMemoryKeyStore } from './in-memory.key-store.js';
import { FixedClock } from './movable-clock.js';

/** In-memory ports for a sign-path unit test: a vault, its API key's principal, one key store, a fixed clock. */
export async function signWorld() {
  const repo = new InMemoryWalletRepository();
  const store = new InMemoryKeyStore('local');
  const registry = new MapKeyStoreRegistry([store], 'local');
  const clock = new FixedClock(new Date('2026-05-01T00:00:00Z'));
  const auditLog = new InMemoryAuditLog();
  let n = 0;
  const ids = { next: () => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}` };
  const manage = new ManageVaults(repo, clock, ids, auditLog);
  const vault = await manage.create({ name: 'main' });
  const { record } = await manage.createApiKey(vault.id);
  const principal = { apiKeyId: record.id, vaultId: vault.id, roles: ALL_ROLES };
  return { repo, store, registry, clock, auditLog, ids, vault, principal };
}
