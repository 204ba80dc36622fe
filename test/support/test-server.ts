import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { vaultRouter } from '../../adapters/main/vault-router.js';
import { loadConfig } from '../../adapters/main/config.js';
import { startServer, type RunningServer } from '../../adapters/main/server.js';
import { MovableClock } from './movable-clock.js';

export interface TestServer {
  readonly url: string;
  readonly dataDir: string;
  readonly clock: MovableClock;
  readonly server: RunningServer;
  createVault(input: { name: string; account?: string }): Promise<{ id: string; accountId: string; name: string }>;
  createApiKey(vaultId: string): Promise<{ apiKey: string; id: string }>;
  revokeApiKey(id: string): Promise<void>;
  /** Stops the server; removes the data directory unless `keepData` (for restart tests). */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * The real service (composition root, SQLite, local key store, Express) in this process on an
 * ephemeral port, over a fresh temporary data directory, with a clock tests can move.
 */
export async function startTestServer(options: { env?: Record<string, string>; dataDir?: string; mount?: string } = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'wallet-vault-test-')));
  const removeOwnDir = () => (options.dataDir ? Promise.resolve() : rm(dataDir, { recursive: true, force: true }));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    VAULT_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    VAULT_VERSION: 'test',
    ...options.env,
  });
  const clock = new MovableClock();
  let server: RunningServer;
  try {
    server = await startServer(config, { clock });
  } catch (error) {
    await removeOwnDir();
    throw error;
  }
  const manage = server.vault.manageVaults;
  // The same tests against the vault's router mounted under a prefix in an app of its own (*.mounted.test.ts).
  const mount = options.mount ?? process.env.WALLET_VAULT_TEST_MOUNT;
  const host = mount ? await mountedApp(server, config, mount) : undefined;
  return {
    url: host ? host.url : server.url,
    dataDir,
    clock,
    server,
    createVault: async (input) => {
      const v = await manage.create(input);
      return { id: v.id, accountId: v.accountId, name: v.name };
    },
    createApiKey: async (vaultId) => {
      const { apiKey, record } = await manage.createApiKey(vaultId);
      return { apiKey, id: record.id };
    },
    revokeApiKey: (id) => manage.revokeApiKey(id),
    stop: async ({ keepData = false } = {}) => {
      if (host) await new Promise((resolve) => host.app.close(resolve));
      await server.close();
      if (!keepData) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** An Express app with `vaultRouter` at `mount`, over the running server's vault and its limits. */
async function mountedApp(server: RunningServer, config: ReturnType<typeof loadConfig>, mount: string): Promise<{ app: Server; url: string }> {
  const host = express();
  host.use(
    mount,
    vaultRouter(server.vault, {
      bodyLimitBytes: config.bodyLimitBytes,
      rateLimitPerMinute: config.rateLimitPerMinute,
      argsBounds: config.argsBounds,
      health: true,
      addressRateLimitPerMinute: config.addressRateLimitPerMinute,
      trustedProxies: config.trustedProxies,
      metricsToken: config.metricsToken,
    }),
  );
  const app = host.listen(0, '127.0.0.1');
  await new Promise((resolve) => app.once('listening', resolve));
  return { app, url: `http://127.0.0.1:${(app.address() as AddressInfo).port}${mount}` };
}
