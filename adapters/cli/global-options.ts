import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Command, Option } from 'commander';
import { applyRemoteOptions, type RemoteOptions } from './remote-operator.js';

/** The options every command takes, before or after the command's name. */
export interface GlobalOptions extends RemoteOptions {
  readonly dataDir?: string;
  readonly databaseUrl?: string;
  readonly config?: string;
}

/**
 * `--data-dir`, `--database-url` and `--config` override VAULT_DATA_DIR, VAULT_DATABASE_URL and VAULT_CONFIG_FILE. They are turned into
 * those variables before anything loads the configuration, so the one validation of config.ts applies
 * to them too and `serve` honours them as every operator command does.
 */
export function registerGlobalOptions(program: Command): void {
  program
    .addOption(new Option('--data-dir <dir>', 'data directory (SQLite database, key files); default: VAULT_DATA_DIR, else ./data'))
    .addOption(new Option('--database-url <url>', 'PostgreSQL database instead of SQLite; default: VAULT_DATABASE_URL'))
    .addOption(new Option('--config <file>', 'configuration file: a JSON object of the environment variables (the environment wins over it); default: VAULT_CONFIG_FILE'))
    .addOption(new Option('--server <url>', "act as a named operator through this vault's admin API (with --operator-key-file) instead of opening the store (docs/operators.md)"))
    .addOption(new Option('--operator-key-file <file>', "the named operator's credential (wvop_…, as operators create printed it), in a file only its owner may read"))
    .option('-V, --version', 'print the version and exit')
    .on('option:version', () => {
      process.stdout.write(`wallet-vault ${packageVersion()}\n`);
      process.exit(0);
    })
    .hook('preAction', (_program, command) => {
      const options = command.optsWithGlobals<GlobalOptions>();
      applyGlobalOptions(options);
      applyRemoteOptions(options, command);
    });
}

export function applyGlobalOptions(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): void {
  if (options.dataDir !== undefined) env.VAULT_DATA_DIR = path.resolve(options.dataDir);
  if (options.databaseUrl !== undefined) env.VAULT_DATABASE_URL = options.databaseUrl;
  if (options.config !== undefined) env.VAULT_CONFIG_FILE = path.resolve(options.config);
}

/** Help lists a required option as `(required)`: commander itself only says so after a failed run. */
export function markRequiredOptions(command: Command): void {
  for (const option of command.options) {
    if (option.mandatory && !option.description.endsWith('(required)')) option.description += ' (required)';
  }
  command.commands.forEach(markRequiredOptions);
}

function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  // Compiled, this module sits one directory deeper (dist/adapters/cli).
  for (const candidate of [file, new URL('../../../package.json', import.meta.url)]) {
    try {
      return (JSON.parse(readFileSync(candidate, 'utf8')) as { version: string }).version;
    } catch {
      // not this one
    }
  }
  return 'unknown';
}
