import type { BindWallets } from '../../src/application/wallets/bind-wallets.use-case.js';
import type { VaultLogger } from './vault-logger.js';

/**
 * The upgrade that introduced wallet bindings, run by the composition root once the key stores answer
 * (BindWallets.upgrade: a no-op but for the first start after the migration): says what it bound, and
 * names each wallet it could not bind with the command that binds it.
 */
export async function bindEarlierWallets(bindWallets: BindWallets, logger: VaultLogger): Promise<void> {
  const report = await bindWallets.upgrade();
  if (report === null) return;
  logger.info({ bound: report.bound.length, failed: report.failed.length }, 'wallets of an earlier release bound to their vaults (wallet.bound)');
  for (const { vaultId, address, reason } of report.failed) {
    logger.warn(
      { vault: vaultId, wallet: address, reason },
      `wallet not bound: it signs nothing until an operator binds it (wallet-vault wallets bind --vault ${vaultId} --address ${address})`,
    );
  }
}
