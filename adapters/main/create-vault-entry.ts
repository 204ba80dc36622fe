import { loadConfig } from './config.js';
import { createVault as createVaultFromOptions, type Vault } from './create-vault.js';
import { vaultFromConfig } from './vault-from-config.js';
import type { VaultOptions } from './vault-options.js';

/**
 * `createVault({ configFile })`: the vault the configuration file describes (decisions.md: the JSON file
 * whose keys are the environment variables' names, the one `serve` and the CLI read with `--config`),
 * with the environment over the file and any option given in code over both. `persistence` and
 * `keyStores` in code replace the configured database and key stores, which are then not opened.
 */
export interface ConfiguredVaultOptions extends Partial<VaultOptions> {
  /** Path of the configuration file, relative to the working directory. */
  readonly configFile: string;
}

/**
 * The library's `createVault`: from options in code, or from a configuration file
 * (ConfiguredVaultOptions) so that an application and the operator's CLI describe the vault once.
 */
export async function createVault(options: VaultOptions | ConfiguredVaultOptions): Promise<Vault> {
  if (typeof options !== 'object' || options === null || !('configFile' in options)) return createVaultFromOptions(options);
  const { configFile, ...overrides } = options;
  if (typeof configFile !== 'string' || configFile === '') return createVaultFromOptions(options as unknown as VaultOptions);
  const config = loadConfig(process.env, process.cwd(), { configFile });
  return vaultFromConfig(config, { overrides, jobs: overrides.jobs });
}
