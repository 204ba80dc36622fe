import type { Command } from 'commander';
import type { KeyQuarantine, QuarantinedKey } from '../../src/ports/key-quarantine.port.js';
import { print } from './output.js';

const context = () => import('./operator-context.js');
const manageQuarantine = async () => (await import('../../src/application/keys/manage-quarantine.use-case.js')).ManageQuarantine;

const present = (k: QuarantinedKey) => ({
  address: k.address,
  keyStore: k.keyStore,
  keyRef: k.keyRef,
  vault: k.vaultId,
  quarantined: k.quarantined.toISOString(),
});

/**
 * `wallet-vault keys quarantine list|restore|destroy`: the keys of this deployment the sweep found
 * without a wallet (kept, not signing) and the operator's decision on each, recorded in the audit trail.
 */
export function registerQuarantineCommands(keys: Command): void {
  const quarantine = keys
    .command('quarantine')
    .description('keys of this deployment no wallet names, held by the sweep (kept, never destroyed by it, not signing)');
  quarantine
    .command('list')
    .description('list the quarantined keys')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const [{ withPersistence }, { TOKENS }] = await Promise.all([context(), import('../main/tokens.js')]);
      const held = await withPersistence(async (c) => {
        const port = c.get<KeyQuarantine | undefined>(TOKENS.KEY_QUARANTINE);
        return port ? port.list() : [];
      });
      const rows = held.map(present);
      print(!!o.json, rows, () =>
        rows.map((r) => `${r.address}  ${r.keyStore}  vault=${r.vault ?? '-'}  quarantined ${r.quarantined}`).join('\n') || '(no quarantined keys)',
      );
    });
  quarantine
    .command('restore')
    .description('give a quarantined key its wallet back (same address), so it signs again; the vault is the one the key store recorded')
    .argument('<address>', 'address of the key (see keys quarantine list)')
    .option('--vault <vaultId>', 'vault of the wallet: required where the key store records none, or the recorded vault is not in this database')
    .option('--name <name>', 'name of the restored wallet', 'restored from quarantine')
    .option('--json', 'print JSON')
    .action(async (address: string, o: { vault?: string; name: string; json?: boolean }) => {
      const [{ withKeyStores }, ManageQuarantine] = await Promise.all([context(), manageQuarantine()]);
      const wallet = await withKeyStores((c) => c.get(ManageQuarantine).restore({ address, vaultId: o.vault, name: o.name }));
      print(!!o.json, { address: wallet.address, vault: wallet.vaultId, id: wallet.id, name: wallet.name, keyStore: wallet.keyStore }, () =>
        `wallet ${wallet.address} restored in vault ${wallet.vaultId} (id ${wallet.id}); it signs again`,
      );
    });
  quarantine
    .command('destroy')
    .description('destroy a quarantined key for good: whatever it controls is lost')
    .argument('<address>', 'address of the key (see keys quarantine list)')
    .option('--json', 'print JSON')
    .action(async (address: string, o: { json?: boolean }) => {
      const [{ withKeyStores }, ManageQuarantine] = await Promise.all([context(), manageQuarantine()]);
      const key = await withKeyStores((c) => c.get(ManageQuarantine).destroy({ address }));
      print(!!o.json, { ...present(key), destroyed: true }, () => `key ${key.address} of ${key.keyStore} destroyed`);
    });
}
