import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../adapters/main/config.js';
import type { Vault } from '../../adapters/main/create-vault.js';
import { startServer, type RunningServer } from '../../adapters/main/server.js';
import { MovableClock } from './movable-clock.js';

/** Vaults and API keys made as an operator makes them (the CLI's use case), in the forms tests use. */
export interface VaultsAndKeys {
  createVault(input: { name: string; account?: string }): Promise<{ id: string; accountId: string; name: string }>;
  createApiKey(vaultId: string): Promise<{ apiKey: string; id: string }>;
  revokeApiKey(id: string): Promise<void>;
}

export function vaultsAndKeysOf(vault: Vault): VaultsAndKeys {
  const manage = vault.manageVaults;
  return {
    createVault: async (input) => {
      const v = await manage.create(input);
      return { id: v.id, accountId: v.accountId, name: v.name };
    },
    createApiKey: async (vaultId) => {
      const { apiKey, record } = await manage.createApiKey(vaultId);
      return { apiKey, id: record.id };
    },
    revokeApiKey: async (id) => {
      await manage.revokeApiKey(id);
    },
  };
}

export interface TestServer extends VaultsAndKeys {
  readonly url: string;
  readonly dataDir: string;
  readonly clock: MovableClock;
  readonly server: RunningServer;
  /** Stops the server; removes the data directory unless `keepData` (for restart tests). */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * The real service (composition root, SQLite, local key store, Express) in this process on an
 * ephemeral port, over a fresh temporary data directory, with a clock tests can move. The suites of the
 * HTTP interface run over every backend through test/support/backends.ts, which starts this one too.
 */
export async function startTestServer(options: { env?: Record<string, string>; dataDir?: string; clock?: MovableClock } = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'wallet-vault-test-')));
  const removeOwnDir = () => (options.dataDir ? Promise.resolve() : rm(dataDir, { recursive: true, force: true }));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    VAULT_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    VAULT_VERSION: 'test',
    // No scheduled audit checkpoint unless a test asks for one: a clock moved by hours would otherwise add
    // `audit.checkpoint` records to trails other tests compare record by record.
    VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS: '0',
    ...options.env,
  });
  const clock = options.clock ?? new MovableClock();
  let server: RunningServer;
  try {
    server = await startServer(config, { clock });
  } catch (error) {
    await removeOwnDir();
    throw error;
  }
  return {
    url: server.url,
    dataDir,
    clock,
    server,
    ...vaultsAndKeysOf(server.vault),
    stop: async ({ keepData = false } = {}) => {
      await server.close();
      if (!keepData) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
