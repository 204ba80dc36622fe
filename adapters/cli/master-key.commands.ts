import type { Command } from 'commander';
import { print } from './output.js';

/**
 * `wallet-vault keys rotate-master`: re-wraps every local key file under a new master key. Offline:
 * servers on this key directory are stopped first (they refuse to start while a rotation is unfinished
 * and report not ready when the key changes under them). Only the adapters are loaded here, not the
 * service. It needs the database too: the rotation is recorded in the audit trail (`master-key.rotated`).
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
      const [{ rotateMaster }, { withPersistence }, { recordMaintenance }, { OPERATOR }] = await Promise.all([
        import('./rotate-master.js'),
        import('./operator-context.js'),
        import('../main/maintenance-audit.js'),
        import('../../src/application/audit/audit-actor.js'),
      ]);
      // The trail is opened first: a rotation is not started where it could not be recorded.
      const outcome = await withPersistence(async (c) => {
        const done = await rotateMaster(o.newKeyFile);
        if (!done.alreadyDone) {
          const { files, rewrapped, newKeyGoesTo, checkpointKey, previousCheckpointKey } = done;
          await recordMaintenance(c, 'master-key.rotated', OPERATOR, { files, rewrapped, newKeyGoesTo, checkpointKey, previousCheckpointKey });
        }
        return done;
      });
      print(!!o.json, outcome, () => outcome.summary);
    });
}
