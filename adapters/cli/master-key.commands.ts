import type { Command } from 'commander';
import { print } from './output.js';

/**
 * `wallet-vault keys rotate-master`: re-wraps every local key file under a new master key. Offline:
 * servers on this key directory are stopped first (they refuse to start while a rotation is unfinished
 * and report not ready when the key changes under them). Only the adapters are loaded here, not the
 * service.
 */
export function registerMasterKeyCommands(keys: Command): void {
  keys
    .command('rotate-master')
    .description(
      're-wrap every local key file under a new master key (stop the servers first); rerun it after an interruption to finish',
    )
    .requiredOption(
      '--new-key-file <path>',
      'file holding the new key as 64 hex characters; created with a fresh random key (0600) when it does not exist',
    )
    .option('--json', 'print JSON')
    .action(async (o: { newKeyFile: string; json?: boolean }) => {
      const { rotateMaster } = await import('./rotate-master.js');
      const outcome = await rotateMaster(o.newKeyFile);
      print(!!o.json, outcome, () => outcome.summary);
    });
}
