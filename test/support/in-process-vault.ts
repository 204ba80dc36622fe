import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { localFileKeyStore } from '../../adapters/keystore/local-file/index.js';
import { createVault, type Vault } from '../../adapters/main/create-vault.js';
import type { Clock } from '../../src/ports/clock.port.js';
import { inMemoryPersistence } from './in-memory.persistence.js';
import { TEST_MASTER_KEY } from './local-key.js';

/**
 * One vault for a test file, in process: the in-memory persistence, a real local-file key store (signing
 * on the event loop), no background jobs, on `clock`. Created before the file's tests, closed after them.
 */
export function inProcessVault(clock: Clock, name: string): { readonly vault: Vault } {
  let dir: string | undefined;
  let vault: Vault | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), `wallet-vault-${name}-`));
    vault = await createVault({
      persistence: inMemoryPersistence(),
      keyStores: [localFileKeyStore({ keysDir: dir, masterKeyHex: TEST_MASTER_KEY, signingThread: false })],
      jobs: false,
      clock,
    });
  });
  afterAll(async () => {
    await vault?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return {
    get vault(): Vault {
      if (vault === undefined) throw new Error('inProcessVault: read the vault inside a test');
      return vault;
    },
  };
}
