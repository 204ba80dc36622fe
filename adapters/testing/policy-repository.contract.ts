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
/** A distinct lower-case bytes32, as the domain stores a pinned uniq. */
const uniq = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

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

    it('keeps the uniq pinned for each contract with the policy', async () => {
      const vault = randomUUID();
      const [c1, c2] = [randomAddress(), randomAddress()];
      const policy: SignPolicy = { contracts: [c1, c2], uniqs: { [c1]: uniq(1), [c2]: uniq(2) } };
      await f.policies.save(vault, policy, NOW);
      expect(await f.policies.find(vault)).toStrictEqual(policy);
    });

    it('keeps the contracts whose uniq the RPC is trusted for, and drops them with a policy that omits them', async () => {
      const vault = randomUUID();
      const [c1, c2] = [randomAddress(), randomAddress()];
      const policy: SignPolicy = { contracts: [c1, c2], uniqs: { [c1]: uniq(1) }, trustRpcUniq: [c2] };
      await f.policies.save(vault, policy, NOW);
      expect(await f.policies.find(vault)).toStrictEqual(policy);
      await f.policies.save(vault, { contracts: [c1, c2], uniqs: { [c1]: uniq(1) } }, NOW);
      expect(await f.policies.find(vault)).toStrictEqual({ contracts: [c1, c2], uniqs: { [c1]: uniq(1) } });
    });

    it('replaces the pins with the policy: a pin the new policy omits is gone, a changed one is the new value', async () => {
      const vault = randomUUID();
      const [c1, c2] = [randomAddress(), randomAddress()];
      await f.policies.save(vault, { contracts: [c1, c2], uniqs: { [c1]: uniq(1), [c2]: uniq(2) } }, NOW);
      await f.policies.save(vault, { contracts: [c1, c2], uniqs: { [c1]: uniq(3) } }, NOW);
      expect(await f.policies.find(vault)).toStrictEqual({ contracts: [c1, c2], uniqs: { [c1]: uniq(3) } });
      await f.policies.save(vault, { contracts: [c1] }, NOW);
      expect(await f.policies.find(vault)).toStrictEqual({ contracts: [c1] });
    });

    it('clears the pins with the policy: a policy set again later has none of the old ones', async () => {
      const vault = randomUUID();
      const c1 = randomAddress();
      await f.policies.save(vault, { contracts: [c1], uniqs: { [c1]: uniq(1) } }, NOW);
      await f.policies.save(vault, null, NOW);
      expect(await f.policies.find(vault)).toBeNull();
      await f.policies.save(vault, { contracts: [c1] }, NOW);
      expect(await f.policies.find(vault)).toStrictEqual({ contracts: [c1] });
    });

    it('keeps each vault\'s pins to itself', async () => {
      const [a, b] = [randomUUID(), randomUUID()];
      const c1 = randomAddress();
      await f.policies.save(a, { contracts: [c1], uniqs: { [c1]: uniq(1) } }, NOW);
      await f.policies.save(b, { contracts: [c1], uniqs: { [c1]: uniq(2) } }, NOW);
      expect((await f.policies.find(a))?.uniqs).toStrictEqual({ [c1]: uniq(1) });
      expect((await f.policies.find(b))?.uniqs).toStrictEqual({ [c1]: uniq(2) });
    });

    it('keeps the rules on arguments with the policy, alone or beside lists, and drops them with a policy that omits them', async () => {
      const vault = randomUUID();
      const rules: SignPolicy['rules'] = [
        { selector: '0x95934488', signature: 'mint(address,uint256,(bytes32,bytes32,bytes32,uint8))', path: [1], name: 'amount', op: 'lte', values: ['1000'] },
        { selector: '0x12345678', path: [0, 2], op: 'addressIn', values: [randomAddress(), randomAddress()] },
      ];
      await f.policies.save(vault, { rules }, NOW);
      expect(await f.policies.find(vault)).toStrictEqual({ rules });
      const c1 = randomAddress();
      const policy: SignPolicy = { contracts: [c1], uniqs: { [c1]: uniq(1) }, rules };
      await f.policies.save(vault, policy, NOW);
      expect(await f.policies.find(vault)).toStrictEqual(policy);
      await f.policies.save(vault, { contracts: [c1] }, NOW);
      expect(await f.policies.find(vault)).toStrictEqual({ contracts: [c1] });
    });

    it('is not changed by a caller changing what it saved or found', async () => {
      const vault = randomUUID();
      const chains = ['sepolia'];
      await f.policies.save(vault, { chains }, NOW);
      chains.push('ethereum');
      const found = await f.policies.find(vault);
      ((found as { chains: string[] }).chains).push('bsc');
      expect(await f.policies.find(vault)).toStrictEqual({ chains: ['sepolia'] });
    });

    it('keeps a policy document (version 2) whole, its uniq pins among them, and gives it back as saved', async () => {
      const vault = randomUUID();
      const contract = randomAddress();
      const document = {
        version: 2 as const,
        rules: [
          { id: 'calls', effect: 'allow' as const, kinds: ['call' as const], contracts: [contract] },
          { id: 'big', effect: { hold: { required: 2, group: 'treasury' } }, kinds: ['transaction' as const] },
        ],
        limits: [{ id: 'daily', each: 'wallet' as const, maxSigns: 10, per: '1d' }],
        uniqs: { [contract]: `0x${'ab'.repeat(32)}` },
      };
      await f.policies.save(vault, document, NOW);
      expect(await f.policies.find(vault)).toStrictEqual(document);
      const { uniqs: _pins, ...unpinned } = document;
      await f.policies.save(vault, unpinned, NOW);
      expect(await f.policies.find(vault)).toStrictEqual(unpinned);
    });
  });
}
