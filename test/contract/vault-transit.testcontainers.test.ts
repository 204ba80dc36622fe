import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { describe } from 'vitest';
import { VaultTransitKeyStore } from '../../adapters/keystore/vault-transit/vault-transit.key-store.js';
import { containerRuntimeAvailable } from '../support/container-runtime.js';
import { describeKeyStoreContract } from 'wallet-vault/testing';

const runtime = await containerRuntimeAvailable();
if (!runtime.available) console.warn(`SKIPPED: vault-transit against hashicorp/vault was not run: no container runtime (${runtime.reason})`);

// The same contract against a real Vault in dev mode, where a container runtime exists.
describe.skipIf(!runtime.available)(
  runtime.available ? 'vault-transit against hashicorp/vault (testcontainers)' : `SKIPPED: vault-transit against hashicorp/vault: no container runtime (${runtime.reason})`,
  () => {
    describeKeyStoreContract(
      'vault-transit (hashicorp/vault dev mode)',
      async () => {
        const token = 'wallet-vault-test-root';
        const container: StartedTestContainer = await new GenericContainer('hashicorp/vault:1.17')
          .withEnvironment({ VAULT_DEV_ROOT_TOKEN_ID: token, VAULT_DEV_LISTEN_ADDRESS: '0.0.0.0:8200' })
          .withExposedPorts(8200)
          .withWaitStrategy(Wait.forHttp('/v1/sys/health', 8200))
          .start();
        const address = `http://${container.getHost()}:${container.getMappedPort(8200)}`;
        const headers = { 'X-Vault-Token': token, 'content-type': 'application/json' };
        await fetch(`${address}/v1/sys/mounts/transit`, { method: 'POST', headers, body: JSON.stringify({ type: 'transit' }) });
        await fetch(`${address}/v1/transit/keys/wallet-vault`, { method: 'POST', headers, body: '{}' });
        const store = new VaultTransitKeyStore({ address, token, keyName: 'wallet-vault' });
        return { store, cleanup: async () => void (await container.stop()) };
      },
      { destroyRevokesKeyRef: false },
    );
  },
);
