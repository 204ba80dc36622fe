import type { Command } from 'commander';
import type { AdminClient } from '../../client/admin-client.js';
import { CliRefusal } from './output.js';
import { readSecretFile } from './private-key-file.js';

/*
 * The CLI as a named operator (docs/operators.md, "The CLI as a named operator"): given `--server` and
 * `--operator-key-file`, a command the admin API covers is sent there with the operator's credential,
 * and the server records it under `operator:<name>`; it opens no store. Without them it stays the local,
 * break-glass operator. The credential is read from a file only (owner-readable, as ssh keys are): an
 * environment variable or an argument would show in the process list and in shells' histories.
 */

/** The commands the admin API covers, by their path below `wallet-vault`; any other is refused with `--server`. */
export const REMOTE_COMMANDS: ReadonlySet<string> = new Set([
  'vaults create',
  'vaults list',
  'api-keys create',
  'api-keys list',
  'api-keys revoke',
  'api-keys rotate',
  'api-keys set-roles',
  'policies apply',
  'policies export',
  'freeze',
  'unfreeze',
  'governance unfreeze',
]);

export interface RemoteOptions {
  readonly server?: string;
  readonly operatorKeyFile?: string;
}

let remote: { url: string; credential: string } | null = null;

const commandPath = (command: Command): string => {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null && c.parent !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

/**
 * Decides, before a command runs, whether it acts as a named operator: both options or neither; a command
 * the admin API does not cover is refused rather than run locally (a person who asked to act under their
 * name must not be recorded as the break-glass operator).
 */
export function applyRemoteOptions(options: RemoteOptions, command: Command): void {
  remote = null;
  if (options.server === undefined && options.operatorKeyFile === undefined) return;
  if (options.server === undefined || options.operatorKeyFile === undefined) {
    throw new CliRefusal('--server and --operator-key-file go together: the admin API to call and the operator credential to call it with', 'USAGE');
  }
  if (!/^https?:\/\/[^/\s]+/i.test(options.server)) throw new CliRefusal(`--server: ${JSON.stringify(options.server.slice(0, 100))} is not an http(s) URL of the vault`, 'USAGE');
  const name = commandPath(command);
  if (!REMOTE_COMMANDS.has(name)) {
    throw new CliRefusal(
      `${name}: not in the admin API, so it cannot be done as a named operator; run it without --server on a host that can open the store (the break-glass local operator, audited as such)`,
      'NOT_REMOTE',
    );
  }
  const bytes = readSecretFile(options.operatorKeyFile, '--operator-key-file', 4096);
  const credential = bytes.toString('utf8').split(/\r?\n/, 1)[0]!.trim();
  bytes.fill(0);
  if (!/^wvop_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/.test(credential)) {
    throw new CliRefusal(`--operator-key-file: ${options.operatorKeyFile} does not hold an operator credential (wvop_…, as operators create printed it)`, 'KEY_FILE');
  }
  remote = { url: options.server, credential };
}

/** The admin client of the named operator the command acts as, or null: the local operator. */
export async function remoteOperator(): Promise<AdminClient | null> {
  if (remote === null) return null;
  const { AdminClient } = await import('../../client/admin-client.js');
  // A change is sent once (it may have happened); reads are retried by the client.
  return new AdminClient({ baseUrl: remote.url, credential: remote.credential });
}
