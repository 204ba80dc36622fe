import { describe, expect, it } from 'vitest';
import { PolicyCache, POLICY_CACHE_TTL_MS } from '../../src/application/signing/policy-cache.js';
import { CHAINS } from '../../src/domain/chains.js';
import { parseSignPolicy, pinnedUniqViolation, type SignPolicy } from '../../src/domain/sign-policy.js';
import { InMemoryPolicyRepository } from '../support/in-memory.persistence.js';
import { FixedClock } from '../support/movable-clock.js';
import { TEST_CHAIN_IDS } from '../support/policy-gate.js';
import { signPolicyViolation } from '../support/legacy-decisions.js';

const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const SENDER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const facts = { chain: 'sepolia', contract: CONTRACT, selector: '0xa9059cbb', sender: SENDER, uniq: null };
const UNIQ_1 = `0x${'11'.repeat(32)}`;
const UNIQ_2 = `0x${'22'.repeat(32)}`;
/** A request on chain local: its uniq comes from the request. */
const local = (uniq: string) => ({ ...facts, chain: 'local', uniq });

describe('sign policy rules', () => {
  it('allows everything without a policy and with lists that name the request', () => {
    expect(signPolicyViolation(null, facts)).toBeNull();
    const uniqs = { [CONTRACT]: UNIQ_1 };
    expect(signPolicyViolation({ chains: ['ethereum', 'sepolia'], contracts: [CONTRACT], uniqs, selectors: ['0xa9059cbb'], senders: [SENDER] }, facts)).toBeNull();
    // An absent list allows everything of its kind.
    expect(signPolicyViolation({ senders: [SENDER] }, facts)).toBeNull();
  });

  it.each<[string, SignPolicy, string]>([
    ['chain', { chains: ['ethereum'] }, "policy: chain sepolia is not in this vault's allowed chains"],
    ['contract', { contracts: [OTHER] }, `policy: contract ${CONTRACT} is not in this vault's allowed contracts`],
    ['selector', { selectors: ['0x12345678'] }, "policy: function selector 0xa9059cbb is not in this vault's allowed selectors"],
    ['sender', { senders: [OTHER] }, `policy: sender ${SENDER} is not in this vault's allowed senders`],
  ])('names the %s rule a request breaks', (_rule, policy, message) => {
    expect(signPolicyViolation(policy, facts)).toBe(message);
  });

  it('names the first broken rule in a fixed order', () => {
    expect(signPolicyViolation({ senders: [OTHER], chains: ['bsc'] }, facts)).toMatch(/chain sepolia/);
  });
});

describe('uniq pins: a listed contract binds what is signed', () => {
  const pinned: SignPolicy = { contracts: [CONTRACT, OTHER], uniqs: { [CONTRACT]: UNIQ_1 } };

  it('allows a request from the request-side uniq only when it is the pinned one', () => {
    expect(signPolicyViolation(pinned, local(UNIQ_1))).toBeNull();
    expect(signPolicyViolation(pinned, local(UNIQ_1.toUpperCase().replace('0X', '0x')))).toBeNull();
  });

  it("refuses a request naming a listed contract with another contract's uniq, naming the rule", () => {
    expect(signPolicyViolation(pinned, local(UNIQ_2))).toBe(`policy: uniq ${UNIQ_2} is not the uniq pinned for contract ${CONTRACT}`);
  });

  it('fails closed: a listed contract without a pin is refused where the uniq comes from the request', () => {
    expect(signPolicyViolation(pinned, { ...local(UNIQ_1), contract: OTHER })).toMatch(
      new RegExp(`^policy: contract ${OTHER} has no pinned uniq, required on chain local .*--contract-uniq`),
    );
    expect(signPolicyViolation({ contracts: [CONTRACT] }, local(UNIQ_1))).toMatch(/has no pinned uniq/);
  });

  it('fails closed where the uniq is read from an RPC too: a listed contract without a pin or trust is refused, naming both ways out', () => {
    const message = signPolicyViolation({ contracts: [OTHER, CONTRACT] }, facts);
    expect(message).toBe(
      `policy: contract ${CONTRACT} has no pinned uniq, and the RPC of chain sepolia is not trusted to choose it ` +
        `(pin it: wallet-vault policies set --contract-uniq ${CONTRACT}=<uniq>, or trust the RPC for it: --trust-rpc-uniq ${CONTRACT})`,
    );
    // Trusting the RPC for another contract trusts it for that one only.
    expect(signPolicyViolation({ contracts: [OTHER, CONTRACT], trustRpcUniq: [OTHER] }, facts)).toBe(message);
  });

  it('lets an unpinned contract through on an RPC chain only when the operator trusts the RPC for it', () => {
    expect(signPolicyViolation({ contracts: [CONTRACT], trustRpcUniq: [CONTRACT] }, facts)).toBeNull();
    // Trust in an RPC means nothing where there is none: the request's uniq still needs a pin.
    expect(signPolicyViolation({ contracts: [CONTRACT], trustRpcUniq: [CONTRACT] }, local(UNIQ_1))).toMatch(/has no pinned uniq, required on chain local/);
  });

  it('checks a pin that exists against the uniq read from the contract', () => {
    expect(signPolicyViolation(pinned, facts)).toBeNull();
    expect(pinnedUniqViolation({}, CONTRACT, UNIQ_2)).toBeNull();
    expect(pinnedUniqViolation(pinned, CONTRACT, UNIQ_1)).toBeNull();
    expect(pinnedUniqViolation(pinned, CONTRACT, UNIQ_2)).toBe(`policy: uniq ${UNIQ_2} is not the uniq pinned for contract ${CONTRACT}`);
    expect(pinnedUniqViolation(null, CONTRACT, UNIQ_2)).toBeNull();
  });

  it('without a contract list, the uniq is not a policy matter', () => {
    expect(signPolicyViolation({ chains: ['local'] }, local(UNIQ_2))).toBeNull();
  });
});

describe('parsing a policy an operator gives', () => {
  it('parses contract=uniq pins: contract EIP-55, uniq lower-case', () => {
    const policy = parseSignPolicy(
      { contracts: [CONTRACT, OTHER], contractUniqs: [`${CONTRACT.toLowerCase()}=${UNIQ_1.toUpperCase().replace('0X', '0x')}`, ` ${OTHER} = ${UNIQ_2} `] },
      CHAINS,
    );
    expect(policy).toEqual({ contracts: [CONTRACT, OTHER], uniqs: { [CONTRACT]: UNIQ_1, [OTHER]: UNIQ_2 } });
  });

  it('parses the contracts whose uniq the RPC is trusted for, stored EIP-55', () => {
    const policy = parseSignPolicy({ contracts: [CONTRACT, OTHER], contractUniqs: [`${OTHER}=${UNIQ_2}`], trustRpcUniq: [CONTRACT.toLowerCase()] }, CHAINS);
    expect(policy).toEqual({ contracts: [CONTRACT, OTHER], uniqs: { [OTHER]: UNIQ_2 }, trustRpcUniq: [CONTRACT] });
  });

  it.each<[string, Parameters<typeof parseSignPolicy>[0], RegExp]>([
    ['a pin for a contract not in the list', { contracts: [OTHER], contractUniqs: [`${CONTRACT}=${UNIQ_1}`] }, /contractUniqs: contract 0x5FbDB.* is not in this policy's contracts/],
    ['a pin without a contract list', { chains: ['local'], contractUniqs: [`${CONTRACT}=${UNIQ_1}`] }, /is not in this policy's contracts/],
    ['a pin without =', { contracts: [CONTRACT], contractUniqs: [CONTRACT] }, /contractUniqs: ".*" is not <contract address>=<uniq>/],
    ['a short uniq', { contracts: [CONTRACT], contractUniqs: [`${CONTRACT}=0x1234`] }, /contractUniqs: uniq "0x1234" is not 0x-prefixed 32-byte hex/],
    ['two uniqs for one contract', { contracts: [CONTRACT], contractUniqs: [`${CONTRACT}=${UNIQ_1}`, `${CONTRACT}=${UNIQ_2}`] }, /pinned to two different uniqs/],
    ['an empty pin list', { contracts: [CONTRACT], contractUniqs: [] }, /contractUniqs: must name at least one/],
    ['trust for a contract not in the list', { contracts: [OTHER], trustRpcUniq: [CONTRACT] }, /trustRpcUniq: contract 0x5FbDB.* is not in this policy's contracts/],
    ['trust for a pinned contract', { contracts: [CONTRACT], contractUniqs: [`${CONTRACT}=${UNIQ_1}`], trustRpcUniq: [CONTRACT] }, /trustRpcUniq: contract 0x5FbDB.* has a pinned uniq/],
    ['trust with a bad address', { contracts: [CONTRACT], trustRpcUniq: ['0x1234'] }, /trustRpcUniq: "0x1234" is not a 0x-prefixed 20-byte hex address/],
    ['an empty trust list', { contracts: [CONTRACT], trustRpcUniq: [] }, /trustRpcUniq: must name at least one/],
  ])('refuses %s, naming the field', (_label, input, message) => {
    expect(() => parseSignPolicy(input, CHAINS)).toThrow(message);
  });

  it('stores addresses EIP-55 and selectors lower-case, accepting uniform case or a valid checksum, dropping duplicates', () => {
    const policy = parseSignPolicy(
      {
        chains: ['sepolia', 'ethereum', 'sepolia'],
        contracts: [CONTRACT.toLowerCase(), `0x${CONTRACT.slice(2).toUpperCase()}`, CONTRACT],
        selectors: ['0xA9059CBB', ' 0x12345678 '],
        senders: [SENDER],
      },
      CHAINS,
    );
    expect(policy).toEqual({ chains: ['sepolia', 'ethereum'], contracts: [CONTRACT], selectors: ['0xa9059cbb', '0x12345678'], senders: [SENDER] });
    expect(parseSignPolicy({ senders: [SENDER.toLowerCase()] }, CHAINS)).toEqual({ senders: [SENDER] });
  });

  it.each<[string, Parameters<typeof parseSignPolicy>[0], RegExp]>([
    ['an unknown chain', { chains: ['mainnet'] }, /chains: "mainnet" is not one of ethereum, sepolia/],
    ['a bad checksum', { contracts: [CONTRACT.replace('F', 'f')] }, /contracts: ".*" has an invalid EIP-55 checksum/],
    ['a short address', { senders: ['0x1234'] }, /senders: "0x1234" is not a 0x-prefixed 20-byte hex address/],
    ['a long selector', { selectors: ['0xa9059cbb00'] }, /selectors: "0xa9059cbb00" is not 0x followed by 8 hex digits/],
    ['a selector without 0x', { selectors: ['a9059cbb'] }, /selectors: "a9059cbb"/],
    ['an empty list', { contracts: [] }, /contracts: must name at least one value/],
    ['no list at all', {}, /give at least one of chains, contracts, selectors, senders/],
  ])('refuses %s, naming the field', (_label, input, message) => {
    expect(() => parseSignPolicy(input, CHAINS)).toThrow(message);
  });
});

describe('the policy cache on the sign path', () => {
  it('reads a vault once per TTL, sees a change after it, and at once when invalidated', async () => {
    const repo = new InMemoryPolicyRepository();
    let reads = 0;
    const counting = { find: (v: string) => (reads++, repo.find(v)), save: repo.save.bind(repo) };
    const clock = new FixedClock(new Date('2026-05-01T00:00:00Z'));
    const cache = new PolicyCache(counting, clock, TEST_CHAIN_IDS);
    expect(await cache.find('v')).toBeNull();
    await repo.save('v', { chains: ['bsc'] }, clock.now());
    clock.advance(POLICY_CACHE_TTL_MS - 1);
    expect(await cache.find('v')).toBeNull();
    expect(reads).toBe(1);
    clock.advance(1);
    // Stored lists are read as the document they migrate to: one allow rule for calls on those chains.
    expect(await cache.find('v')).toEqual({ version: 2, rules: [{ id: 'calls', effect: 'allow', kinds: ['call'], chains: ['bsc'] }], limits: [] });
    expect(reads).toBe(2);
    await repo.save('v', null, clock.now());
    cache.invalidate('v');
    expect(await cache.find('v')).toBeNull();
    expect(reads).toBe(3);
  });
});
