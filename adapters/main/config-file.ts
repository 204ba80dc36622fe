import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * One configuration file (decisions.md: `--config F` / `VAULT_CONFIG_FILE`): a JSON object whose keys are
 * the environment variables' names (`{"VAULT_CHAINS": "arbitrum:42161", "VAULT_DATABASE_SCHEMA": "vault"}`).
 * `serve`, every CLI command and `createVault({ configFile })` read it, so an embedded application and the
 * operator's commands describe the same vault once. A variable set in the environment wins over the file.
 */

/** Larger than any real configuration; a file past it is refused before it is parsed. */
const MAX_CONFIG_FILE_BYTES = 256 * 1024;

/** Settings that are paths: relative ones in a file are relative to the file's folder. */
const PATH_SETTINGS = ['VAULT_DATA_DIR', 'VAULT_WEBHOOK_SIGNING_KEY'] as const;

/** Where each setting came from, for messages that name a setting. */
export type SettingSource = 'environment' | { readonly file: string };

export interface ConfigEnvironment {
  /** The settings as loadConfig reads them: the file's, with the environment's over them. */
  readonly env: Record<string, string | undefined>;
  /** The file read, absolute; undefined when none was named. */
  readonly file: string | undefined;
  readonly sourceOf: (name: string) => SettingSource | undefined;
}

/** Thrown for a file that cannot be read or is not a configuration; the caller wraps it as its ConfigError. */
export class ConfigFileProblem extends Error {}

/**
 * The environment with the configuration file's settings under it. The file is `file` when given, else
 * the environment's VAULT_CONFIG_FILE; relative paths are from `cwd`. `known(name)` says whether a key is
 * a setting at all: an unknown key (a typo) is refused, as silently ignoring it would leave the operator
 * believing it applies.
 */
export function withConfigFile(env: NodeJS.ProcessEnv, cwd: string, known: (name: string) => boolean, file?: string): ConfigEnvironment {
  const named = file ?? (env.VAULT_CONFIG_FILE === '' ? undefined : env.VAULT_CONFIG_FILE);
  const fromEnvironment = (name: string) => env[name] !== undefined && env[name] !== '';
  if (named === undefined) return { env: { ...env }, file: undefined, sourceOf: (name) => (fromEnvironment(name) ? 'environment' : undefined) };
  const absolute = path.resolve(cwd, named);
  const settings = readSettings(absolute, known);
  // A path in the file is read from where the file is, whoever starts the command and from wherever.
  for (const name of PATH_SETTINGS) if (settings[name] !== undefined) settings[name] = path.resolve(path.dirname(absolute), settings[name]);
  const merged: Record<string, string | undefined> = { ...settings };
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') merged[name] = value;
  return {
    env: merged,
    file: absolute,
    sourceOf: (name) => (fromEnvironment(name) ? 'environment' : settings[name] !== undefined ? { file: absolute } : undefined),
  };
}

function readSettings(file: string, known: (name: string) => boolean): Record<string, string> {
  let text: string;
  try {
    if (statSync(file).size > MAX_CONFIG_FILE_BYTES) throw new ConfigFileProblem(`${file}: larger than ${MAX_CONFIG_FILE_BYTES} bytes; not a configuration file`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ConfigFileProblem) throw error;
    throw new ConfigFileProblem(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileProblem(`${file}: not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigFileProblem(`${file}: must be a JSON object of settings ({"VAULT_CHAINS": "arbitrum:42161", …})`);
  const settings: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (name === 'VAULT_CONFIG_FILE') throw new ConfigFileProblem(`${file}: VAULT_CONFIG_FILE cannot name another file from inside one`);
    if (!known(name) && !name.startsWith('VAULT_RPC_URL_')) throw new ConfigFileProblem(`${file}: ${name} is not a setting of wallet-vault (docs/configuration.md lists them)`);
    // Numbers and booleans as JSON has them; the environment's form (text) is what every check reads.
    if (typeof value === 'string') settings[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') settings[name] = String(value);
    else throw new ConfigFileProblem(`${file}: ${name} must be a string, number or boolean (as its environment variable would be)`);
  }
  return settings;
}

/** `VAULT_CHAINS: …` as `VAULT_CHAINS (set in /etc/wallet-vault.json): …`: which of two places to fix. */
export function withSources(message: string, sourceOf: ConfigEnvironment['sourceOf']): string {
  return message.replace(/^(\s*)((?:VAULT|AWS)_[A-Z0-9_]+|HOST|PORT|LOG_LEVEL)(?=:)/gm, (whole, indent: string, name: string) => {
    const source = sourceOf(name);
    if (source === undefined) return whole;
    return `${indent}${name} (${source === 'environment' ? 'from the environment' : `set in ${source.file}`})`;
  });
}
