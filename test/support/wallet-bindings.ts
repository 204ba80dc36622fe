import { EthersStandardPayloads } from '../../adapters/ethereum/ethers.standard-payloads.js';
import { WalletBindings } from '../../src/application/wallets/wallet-binding.js';
import type { AuditLog } from '../../src/ports/audit-log.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import { InMemoryAuditLog } from './in-memory.persistence.js';
import { FixedClock } from './movable-clock.js';

/** The wallets' bindings over `keyStores`, recovered as the vault recovers them (the ethers payloads). */
export function bindingsOver(keyStores: KeyStoreRegistry, auditLog: AuditLog = new InMemoryAuditLog(), clock: Clock = new FixedClock(new Date('2026-05-01T00:00:00Z'))): WalletBindings {
  return new WalletBindings({ keyStores, recovery: new EthersStandardPayloads(), auditLog, clock });
}
