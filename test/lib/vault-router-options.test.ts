import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVault, VaultOptionsError, type Vault } from 'wallet-vault';
import { vaultRouter, type VaultRouterOptions } from 'wallet-vault/express';
import { inMemoryPersistence } from 'wallet-vault/testing';

describe('vaultRouter refuses bad options at once, naming the option', () => {
  let vault: Vault;
  beforeAll(async () => {
    vault = await createVault({ persistence: inMemoryPersistence(), jobs: false });
  });
  afterAll(async () => {
    await vault.close();
  });

  it.each([
    ['a misspelt option', { bodyLimit: 1024 }, /^ {2}bodyLimit: not an option of vaultRouter$/m],
    ['a body limit that is not a whole number', { bodyLimitBytes: 1.5 }, /^ {2}bodyLimitBytes: /m],
    ['a rate limit of zero', { rateLimitPerMinute: 0 }, /^ {2}rateLimitPerMinute: /m],
    ['a rate-limit store that is none', { rateLimitPerMinute: 1, rateLimitStore: 'memory' }, /^ {2}rateLimitStore: /m],
    ['a Redis store without a client', { rateLimitPerMinute: 1, rateLimitStore: { redis: {} } }, /^ {2}rateLimitStore\.redis: must implement defineCommand\(\)$/m],
    ['args bounds missing a field', { argsBounds: { maxDepth: 4, maxArrayLength: 10, maxValues: 100 } }, /^ {2}argsBounds\.maxStringLength: /m],
    ['health given as a string', { health: 'yes' }, /^ {2}health: /m],
    ['a logger without error()', { logger: { info() {}, warn() {} } }, /^ {2}logger: must implement error\(\)$/m],
    ['a metrics source without exposition()', { metrics: { observeRateLimited() {} } }, /^ {2}metrics: must implement exposition\(\)$/m],
    ['a trusted proxy that is not an address', { trustedProxies: ['10.0.0.0/8', 'proxy.internal'] }, /^ {2}trustedProxies\[1\]: must be an IP address or CIDR range$/m],
    ['a short metrics token', { metricsToken: 'short' }, /^ {2}metricsToken: must be at least 16 characters$/m],
  ])('%s', (_label, options, message) => {
    let error: unknown;
    try {
      vaultRouter(vault, options as unknown as VaultRouterOptions);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(VaultOptionsError);
    expect((error as Error).message).toMatch(/^invalid vaultRouter options:\n/);
    expect((error as Error).message).toMatch(message);
  });

  it("refuses rateLimitStore 'database' for a vault whose database is not PostgreSQL", () => {
    expect(() => vaultRouter(vault, { rateLimitPerMinute: 1, rateLimitStore: 'database' })).toThrow(
      new VaultOptionsError("vaultRouter: rateLimitStore: 'database' needs a vault on PostgreSQL (SQLite counts in process)"),
    );
  });

  it('takes every documented option', () => {
    const router = vaultRouter(vault, {
      bodyLimitBytes: 4096,
      rateLimitPerMinute: 60,
      rateLimitStore: 'process',
      argsBounds: { maxDepth: 8, maxArrayLength: 100, maxStringLength: 1000, maxValues: 2000 },
      health: true,
      metrics: { exposition: async () => ({ contentType: 'text/plain', text: '' }), observeRateLimited() {} },
      notFound: false,
      logger: console,
      addressRateLimitPerMinute: 600,
      trustedProxies: ['10.0.0.0/8', '::1'],
      metricsToken: 'a-token-of-sixteen-or-more',
    });
    expect(typeof router).toBe('function');
  });
});
