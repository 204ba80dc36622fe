import type { Command } from 'commander';
import { CliRefusal, print } from './output.js';
import { withoutTrailingSlashes } from '../../src/domain/url-path.js';

/**
 * The seal's commands (docs/keystores.md#sealed-start): `wallet-vault master-key split` turns the local
 * store's master key into custodians' share files, once, offline; `wallet-vault unseal` submits one
 * custodian's share to a running server, as `POST /api/v1/sys/unseal` does.
 */
export function registerSealCommands(program: Command): void {
  const masterKey = program.command('master-key').description("the local key store's master key as custodians' Shamir shares (VAULT_SEAL=shamir)");
  masterKey
    .command('split')
    .description('write the master key (VAULT_MASTER_KEY, else <data-dir>/master.key) as N share files, any M of which unseal a server started with VAULT_SEAL=shamir')
    .requiredOption('--shares <n>', 'how many share files (one per custodian), 2 to 255')
    .requiredOption('--threshold <m>', 'how many shares unseal, 2 to --shares')
    .requiredOption('--out-dir <dir>', 'where share-1.json … share-N.json are written (0600; the directory is created 0700, and must hold no share files yet)')
    .option('--json', 'print JSON')
    .action(async (o: { shares: string; threshold: string; outDir: string; json?: boolean }) => {
      const [{ splitToFiles }, { withPersistence }, { recordMaintenance }, { OPERATOR }] = await Promise.all([
        import('./master-key-split.js'),
        import('./operator-context.js'),
        import('../main/maintenance-audit.js'),
        import('../../src/application/audit/audit-actor.js'),
      ]);
      // The trail is opened first: a split is not made where it could not be recorded.
      const outcome = await withPersistence(async (c) => {
        const done = await splitToFiles(o.outDir, Number(o.shares), Number(o.threshold));
        await recordMaintenance(c, 'master-key.split', OPERATOR, { split: done.split, shares: done.shares, threshold: done.threshold });
        return done;
      });
      print(!!o.json, outcome, () => outcome.summary);
    });

  masterKey
    .command('resplit')
    .description('write new share files of the same master key from the threshold of the current split\'s share files; the old split unseals nothing afterwards')
    .requiredOption('--share-file <file>', 'a share file of the current split; give it once per share, at least its threshold', (file: string, files: string[]) => [...files, file], [] as string[])
    .requiredOption('--shares <n>', 'how many new share files (one per custodian), 2 to 255')
    .requiredOption('--threshold <m>', 'how many new shares unseal, 2 to --shares')
    .requiredOption('--out-dir <dir>', 'where the new share-1.json … share-N.json are written (0600; must hold no share files yet)')
    .option('--json', 'print JSON')
    .action(async (o: { shareFile: string[]; shares: string; threshold: string; outDir: string; json?: boolean }) => {
      const [{ resplitToFiles }, { withPersistence }, { recordMaintenance }, { OPERATOR }] = await Promise.all([
        import('./master-key-split.js'),
        import('./operator-context.js'),
        import('../main/maintenance-audit.js'),
        import('../../src/application/audit/audit-actor.js'),
      ]);
      const outcome = await withPersistence(async (c) => {
        const done = await resplitToFiles(o.shareFile, o.outDir, Number(o.shares), Number(o.threshold));
        await recordMaintenance(c, 'master-key.resplit', OPERATOR, { previousSplit: done.previousSplit, split: done.split, shares: done.shares, threshold: done.threshold });
        return done;
      });
      print(!!o.json, outcome, () => outcome.summary);
    });

  program
    .command('unseal')
    .description("submit one custodian's master key share to a sealed server (POST /api/v1/sys/unseal); prints the progress")
    .requiredOption('--url <url>', 'the server, e.g. https://vault.internal:8080')
    .requiredOption('--share-file <file>', 'a share file written by `wallet-vault master-key split`')
    .option('--json', 'print JSON')
    .action(async (o: { url: string; shareFile: string; json?: boolean }) => {
      const { readFile } = await import('node:fs/promises');
      let share: string;
      try {
        share = await readFile(o.shareFile, 'utf8');
      } catch (error) {
        throw new CliRefusal(`--share-file: cannot read ${o.shareFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'SHARE_FILE_UNREADABLE');
      }
      const url = `${withoutTrailingSlashes(o.url)}/api/v1/sys/unseal`;
      let response: Response;
      try {
        response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ share }) });
      } catch (error) {
        throw new CliRefusal(`--url: ${url} did not answer (${(error as Error).message})`, 'SERVER_UNAVAILABLE');
      }
      const body = (await response.json().catch(() => null)) as { error?: unknown; code?: unknown; sealed?: unknown; threshold?: unknown; progress?: unknown } | null;
      if (!response.ok || body === null) {
        throw new CliRefusal(`the server refused the share (${response.status}): ${typeof body?.error === 'string' ? body.error : 'no message'}`, typeof body?.code === 'string' ? body.code : 'UNSEAL_REFUSED');
      }
      print(!!o.json, body, () => (body.sealed === false ? 'unsealed: the server signs again' : `sealed: ${String(body.progress)} of ${String(body.threshold)} shares submitted`));
    });
}
