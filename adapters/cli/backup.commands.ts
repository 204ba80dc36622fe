import type { Command } from 'commander';
import { print } from './output.js';

const collect = (file: string, files: string[]) => [...files, file];

/**
 * `wallet-vault backup create` and `backup restore` (docs/operations.md#backup-and-restore): an
 * encrypted, integrity-checked copy of the database and the local store's key files, and its restore
 * into an empty database and a fresh data directory. Only the adapters are loaded here.
 */
export function registerBackupCommands(program: Command): void {
  const backup = program.command('backup').description('encrypted backups of the database and the local key store, and their restore');
  backup
    .command('create')
    .description('write every table and the local key store\'s files to FILE (0600), encrypted under a key derived from the master key')
    .requiredOption('--out <file>', 'the backup file to write (refused when it exists)')
    .option('--share-file <file>', 'with VAULT_SEAL=shamir: a custodian\'s share file; give it once per share, at least the threshold', collect, [] as string[])
    .option('--json', 'print JSON')
    .action(async (o: { out: string; shareFile: string[]; json?: boolean }) => {
      const { createBackup } = await import('./backup.js');
      const outcome = await createBackup(o.out, o.shareFile);
      print(!!o.json, outcome, () => outcome.summary);
    });
  backup
    .command('restore')
    .description('restore a backup into an empty database and a data directory without key files; needs the master key it was made under')
    .requiredOption('--file <file>', 'the backup file')
    .option('--share-file <file>', 'a share file of the master key (instead of VAULT_MASTER_KEY or <data-dir>/master.key); give it once per share, at least the threshold', collect, [] as string[])
    .option('--json', 'print JSON')
    .action(async (o: { file: string; shareFile: string[]; json?: boolean }) => {
      const { restoreBackup } = await import('./backup.js');
      const outcome = await restoreBackup(o.file, o.shareFile);
      print(!!o.json, outcome, () => outcome.summary);
    });
}
