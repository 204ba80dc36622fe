import { describe, expect, it } from 'vitest';
import { createVault } from '../../adapters/main/create-vault.js';
import { USE_CASES } from '../../adapters/main/use-cases.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { inMemoryPersistence } from '../support/in-memory.persistence.js';

/** The use cases are listed once (adapters/main/use-cases.ts); the vault and the container follow from that list. */
describe('the use-case registry', () => {
  it('gives the vault one property per use case, the instance its container holds', async () => {
    const vault = await createVault({ persistence: inMemoryPersistence(), keyStores: [new InMemoryKeyStore('memory')], jobs: false });
    try {
      for (const [name, { type }] of Object.entries(USE_CASES) as [string, { type: abstract new (...args: any[]) => unknown }][]) {
        const useCase = (vault as unknown as Record<string, unknown>)[name];
        expect(useCase, name).toBeInstanceOf(type);
        expect(useCase, name).toBe(vault.container.get(type));
      }
    } finally {
      await vault.close();
    }
  });

  it('builds a vault without key stores: the use cases on keys fail only when read', async () => {
    const vault = await createVault({ persistence: inMemoryPersistence(), jobs: false });
    try {
      const onKeys = Object.entries(USE_CASES).filter(([, e]) => e.needsKeyStores).map(([name]) => name);
      expect(onKeys).toEqual(expect.arrayContaining(['createWallet', 'signCall']));
      for (const name of onKeys) expect(() => (vault as unknown as Record<string, unknown>)[name], name).toThrow();
      const others = Object.entries(USE_CASES).filter(([, e]) => !e.needsKeyStores);
      for (const [name, { type }] of others) expect((vault as unknown as Record<string, unknown>)[name], name).toBeInstanceOf(type);
    } finally {
      await vault.close();
    }
  });
});
