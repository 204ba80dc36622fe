import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WalletRepository } from '../../src/ports/wallet-repository.port.js';
import { WALLET_REPOSITORY } from '../../adapters/main/tokens.js';
import { cliJson, runCli } from '../support/cli.js';
import { startFakeVault, type FakeVault } from '../support/fake-vault.server.js';
import { client } from '../support/http-client.js';
import { recoverWithStore } from '../support/recover-with-store.js';
import { startTestServer } from '../support/test-server.js';
import { WalletBindings } from '../../src/application/wallets/wallet-binding.js';

describe('wallet-vault keys rewrap', () => {
  let transit: FakeVault;
  beforeAll(async () => {
    transit = await startFakeVault();
  });
  afterAll(async () => {
    await transit?.close();
  });

  it('moves every Transit-wrapped key to the latest key version; the wallets still sign', async () => {
    const env = { VAULT_KEYSTORE: 'vault-transit', VAULT_ADDR: transit.url, VAULT_TRANSIT_ALLOW_HTTP: 'true', VAULT_TOKEN: transit.token, VAULT_TRANSIT_KEY: 'wallet-vault' };
    const first = await startTestServer({ env });
    const vaultId = (await first.createVault({ name: 'rotate' })).id;
    const api = client(first.url, (await first.createApiKey(vaultId)).apiKey);
    const addresses: string[] = [];
    for (let i = 0; i < 5; i++) addresses.push((await api.post(`/api/v1/vaults/${vaultId}/wallets`, { name: `w${i}` })).body.data.address);
    await first.stop({ keepData: true });

    transit.rotate('wallet-vault');
    const cliEnv = { ...env, VAULT_DATA_DIR: first.dataDir };
    const result = await cliJson<{ store: string; rewrapped: number }>(['keys', 'rewrap'], cliEnv);
    expect(result).toEqual({ store: 'vault-transit', rewrapped: 5 });
    // An operator action: recorded once it is done (issue 35).
    const trail = await cliJson<{ action: string; actor: string; details: object }[]>(['audit', 'list', '--limit', '1000'], cliEnv);
    expect(trail.at(-1)).toMatchObject({ action: 'keys.rewrapped', actor: 'operator', details: { keyStore: 'vault-transit', rewrapped: 5 } });

    const second = await startTestServer({ dataDir: first.dataDir, env });
    try {
      const repo = second.server.container.get<WalletRepository>(WALLET_REPOSITORY);
      const bindings = second.server.container.get(WalletBindings);
      for (const address of addresses) {
        const wallet = await repo.findWallet(vaultId, address, new Date());
        expect(wallet?.keyRef).toMatch(/:vault:v2:/);
        // The binding covers the key reference: it was signed again under the new one.
        expect(bindings.problemOf(wallet!)).toBeNull();
        expect(await recoverWithStore(second, vaultId, address)).toBe(address);
      }
      const local = await runCli(['keys', 'rewrap', '--store', 'local'], cliEnv);
      expect(local.code).not.toBe(0);
      expect(local.stderr).toMatch(/key store local does not wrap keys/);
    } finally {
      await second.stop();
    }
  });
});
