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
    .command('list')
    .description("a vault's wallets that are not deleted, oldest first: address, name, key store, HD path, and when a key was exported (never removed once set)")
    .requiredOption('--vault <vaultId>', 'vault of the wallets')
    .option('--offset <n>', 'skip this many', '0')
    .option('--count <n>', 'at most this many (1 to 100)', '100')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; offset: string; count: string; json?: boolean }) => {
      const [{ withPersistence }, { ListWallets }, { requireVault }] = await Promise.all([
        import('./operator-context.js'),
        import('../../src/application/wallets/list-wallets.use-case.js'),
        import('../../src/application/wallets/wallet-lookup.js'),
      ]);
      const offset = Number(o.offset);
      const count = Number(o.count);
      if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(count) || count < 1 || count > 100) fail('wallets list: --offset is a whole number from 0, --count from 1 to 100', EXIT.USAGE);
      const page = await withPersistence(async (c) => {
        const { PORT_TOKENS } = await import('../main/tokens.js');
        await requireVault(c.get(PORT_TOKENS.WALLET_REPOSITORY), o.vault);
        return c.get(ListWallets).execute(o.vault, offset, count);
      });
      const rows = page.page.map((w) => ({
        id: w.id,
        address: w.address,
        name: w.name,
        keyStore: w.keyStore,
        created: w.created.toISOString(),
        ...(w.expires ? { expires: w.expires.toISOString() } : {}),
        ...(w.derivationPath ? { derivationPath: w.derivationPath } : {}),
        ...(w.exported ? { exported: w.exported.toISOString() } : {}),
      }));
      print(!!o.json, { count: page.count, page: rows }, () =>
        [
          `${page.count} wallet${page.count === 1 ? '' : 's'} in vault ${o.vault}`,
          ...rows.map((w) => `  ${w.address}  ${JSON.stringify(w.name)}  ${w.keyStore}${w.derivationPath ? `  ${w.derivationPath}` : ''}${w.exported ? `  EXPORTED ${w.exported}` : ''}${w.expires ? `  expires ${w.expires}` : ''}`),
        ].join('\n'),
      );
    });
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
