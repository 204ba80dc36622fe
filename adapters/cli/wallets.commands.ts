import type { Command } from 'commander';
import { EXIT, fail, print } from './output.js';

/**
 * `wallet-vault wallets bind`: the operator binds wallets that carry no binding (docs/security.md, "What a
 * database writer can change"): their own keys sign their rows as they are, recorded as `wallet.bound`. For
 * a wallet the upgrade could not bind, or one whose binding was cleared on purpose; a row that has a binding
 * which does not hold is refused (restore the row instead).
 */
export function registerWalletCommands(program: Command): void {
  const wallets = program.command('wallets').description("operate on wallets' records");
  wallets
    .command('bind')
    .description(
      "bind a vault's wallets that carry no binding (all, or --address) to the vault their rows name: each key signs its row, recorded as wallet.bound. " +
        'Check the rows first: a wallet bound here signs for that vault.',
    )
    .requiredOption('--vault <vaultId>', 'vault of the wallets')
    .option('--address <address>', 'only this wallet (any letter case)')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; address?: string; json?: boolean }) => {
      const [{ withKeyStores }, { BindWallets }] = await Promise.all([import('./operator-context.js'), import('../../src/application/wallets/bind-wallets.use-case.js')]);
      const report = await withKeyStores((c) => c.get(BindWallets).bind({ vaultId: o.vault, ...(o.address === undefined ? {} : { address: o.address }) }));
      print(!!o.json, report, () =>
        [
          `${report.bound.length} wallet${report.bound.length === 1 ? '' : 's'} of vault ${o.vault} bound`,
          ...report.bound.map((w) => `  bound ${w.address}`),
          ...report.failed.map((w) => `  not bound ${w.address}: ${w.reason}`),
        ].join('\n'),
      );
      if (report.failed.length > 0) fail(`${report.failed.length} wallet(s) could not be bound (see above)`, EXIT.REFUSED, 'NOT_BOUND');
    });
}
