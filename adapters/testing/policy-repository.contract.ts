import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignPolicy } from '../../src/domain/sign-policy.js';
import type { PolicyRepository } from '../../src/ports/policy-repository.port.js';
import { randomAddress } from './fixtures.js';

export interface PolicyRepositoryFixture {
  readonly policies: PolicyRepository;
  cleanup(): Promise<void>;
}

const NOW = new Date('2026-06-01T00:00:00Z');

/** What every policy repository must do. Vault ids need not name stored vaults. */
export function describePolicyRepositoryContract(name: string, make: () => Promise<PolicyRepositoryFixture>): void {
  describe(`PolicyRepository contract: ${name}`, () => {
    let f: PolicyRepositoryFixture;
    beforeAll(async () => {
      f = await make();
    });
    afterAll(async () => {
      await f?.cleanup();
    });

    it('finds nothing for a vault without a policy', async () => {
      expect(await f.policies.find(randomUUID())).toBeNull();
    });

    it('saves a policy and gives it back exactly, absent and empty lists kept apart', async () => {
      const vault = randomUUID();
      const policy: SignPolicy = {
        chains: ['sepolia', 'bsc-testnet'],
        contracts: [randomAddress(), randomAddress()],
        selectors: [],
      };
      await f.policies.save(vault, policy, NOW);
      const found = await f.policies.find(vault);
      expect(found).toStrictEqual(policy);
      expect(found).not.toHaveProperty('senders');
    });

    it('replaces the whole policy: lists the new one omits are gone', async () => {
      const vault = randomUUID();
      await f.policies.save(vault, { chains: ['ethereum'], contracts: [randomAddress()] }, NOW);
      const replacement: SignPolicy = { selectors: ['0xa9059cbb'], senders: [randomAddress()] };
      await f.policies.save(vault, replacement, new Date(NOW.getTime() + 1));
      expect(await f.policies.find(vault)).toStrictEqual(replacement);
    });

    it('clears with null, and clearing twice is fine', async () => {
      const vault = randomUUID();
      await f.policies.save(vault, { chains: ['polygon'] }, NOW);
      await f.policies.save(vault, null, NOW);
      expect(await f.policies.find(vault)).toBeNull();
      await f.policies.save(vault, null, NOW);
      expect(await f.policies.find(vault)).toBeNull();
      await f.policies.save(vault, { chains: ['amoy'] }, NOW);
      expect(await f.policies.find(vault)).toStrictEqual({ chains: ['amoy'] });
    });

    it('keeps each vault\'s policy to itself', async () => {
      const [a, b] = [randomUUID(), randomUUID()];
      await f.policies.save(a, { chains: ['fuji'] }, NOW);
      await f.policies.save(b, { chains: ['avalanche'] }, NOW);
      await f.policies.save(a, null, NOW);
      expect(await f.policies.find(a)).toBeNull();
      expect(await f.policies.find(b)).toStrictEqual({ chains: ['avalanche'] });
    });

    it('is not changed by a caller changing what it saved or found', async () => {
      const vault = randomUUID();
      const chains = ['sepolia'];
      await f.policies.save(vault, { chains }, NOW);
      chains.push('ethereum');
      const found = await f.policies.find(vault);
      (found!.chains as string[]).push('bsc');
      expect(await f.policies.find(vault)).toStrictEqual({ chains: ['sepolia'] });
    });
  });
}
