import { describe, expect, it } from 'vitest';
import { readingPayloads } from '../support/read-payloads.js';
import { CHAINS } from '../../src/domain/chains.js';
import { parseSignPolicy, type SignPolicyInput } from '../../src/domain/sign-policy.js';
import { asJson, permit } from '../support/typed-data-fixtures.js';
import { type StandardSignPolicy } from '../../src/domain/standard-sign-policy.js';
import { messageViolation, signPolicyViolation, transactionViolation, typedDataViolation } from '../support/legacy-decisions.js';

/**
 * The standard-signing rules, written as attempts to get past them: each request is what a client
 * could send, read by the real payload adapter, against a policy parsed from what an operator types.
 */
const payloads = readingPayloads();
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const ROUTER = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const STRANGER = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';
const TRANSFER = '0xa9059cbb';
const APPROVE = '0x095ea7b3';
const ONE_ETH = 10n ** 18n;

const policy = (input: SignPolicyInput): StandardSignPolicy => parseSignPolicy(input, CHAINS);
const TX_POLICY = policy({
  txChainIds: ['1', '0x7a69'],
  // Lower and upper case as an operator might paste them: stored EIP-55, compared as such.
  txTo: [TOKEN.toLowerCase(), `0x${ROUTER.slice(2).toUpperCase()}`],
  txSelectors: [TRANSFER.toUpperCase().replace('0X', '0x')],
  txMaxValue: ONE_ETH.toString(),
});

const tx = (overrides: Record<string, unknown> = {}) =>
  payloads.unsignedTransaction({
    type: 'eip1559',
    chainId: 31337,
    nonce: 0,
    to: TOKEN,
    value: 0,
    data: `${TRANSFER}${'00'.repeat(64)}`,
    gas: 100000,
    maxFeePerGas: 1,
    maxPriorityFeePerGas: 1,
    ...overrides,
  }).facts;

describe('transactions: deny by default', () => {
  it('stores what the operator typed normalised: decimal chain ids, EIP-55 recipients, lower-case selectors', () => {
    expect(TX_POLICY.transactions).toEqual({ chainIds: ['1', '31337'], to: [TOKEN, ROUTER], selectors: [TRANSFER], maxValue: ONE_ETH.toString() });
  });

  it('allows what the policy names, recipients in any letter case', () => {
    expect(transactionViolation(TX_POLICY, tx())).toBeNull();
    expect(transactionViolation(TX_POLICY, tx({ to: TOKEN.toLowerCase() }))).toBeNull();
    expect(transactionViolation(TX_POLICY, tx({ to: `0x${ROUTER.slice(2).toUpperCase()}`, value: ONE_ETH, type: 'legacy', gasPrice: 1, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined }))).toBeNull();
    // A plain transfer carries no data: no selector to allow.
    expect(transactionViolation(TX_POLICY, tx({ data: '0x', value: 1 }))).toBeNull();
  });

  it.each<[string, StandardSignPolicy | null, () => ReturnType<typeof tx>, string]>([
    ['no policy at all', null, () => tx(), "policy: this vault's policy allows no transactions (--tx-chain-ids)"],
    ['a policy of Sign lists only', policy({ chains: ['sepolia'] }), () => tx(), "policy: this vault's policy allows no transactions (--tx-chain-ids)"],
    ['a chain id not allowed', TX_POLICY, () => tx({ chainId: 5 }), "policy: chain id 5 is not in this vault's allowed transaction chain ids"],
    ['a chain id given in hex for one not allowed', TX_POLICY, () => tx({ chainId: '0x38' }), "policy: chain id 56 is not in this vault's allowed transaction chain ids"],
    ['a recipient not allowed', TX_POLICY, () => tx({ to: STRANGER }), `policy: recipient ${STRANGER} is not in this vault's allowed transaction recipients`],
    ['a recipient not allowed, in lower case', TX_POLICY, () => tx({ to: STRANGER.toLowerCase() }), `policy: recipient ${STRANGER} is not in this vault's allowed transaction recipients`],
    ['a selector not allowed', TX_POLICY, () => tx({ data: `${APPROVE}${'ff'.repeat(64)}` }), `policy: function selector ${APPROVE} is not in this vault's allowed transaction selectors`],
    ['a selector in upper case not allowed', TX_POLICY, () => tx({ data: `0x095EA7B3${'00'.repeat(64)}` }), `policy: function selector ${APPROVE} is not in this vault's allowed transaction selectors`],
    ['data shorter than a selector (a fallback call)', TX_POLICY, () => tx({ data: '0xa9059c' }), 'policy: transaction data shorter than a function selector is not allowed'],
    ['a value one wei over the cap', TX_POLICY, () => tx({ value: (ONE_ETH + 1n).toString() }), `policy: value ${ONE_ETH + 1n} wei is over this vault's per-transaction cap of ${ONE_ETH} wei`],
    ['a value with no cap given (cap 0)', policy({ txChainIds: ['31337'], txTo: [TOKEN], txSelectors: [TRANSFER] }), () => tx({ value: 1 }), "policy: value 1 wei is over this vault's per-transaction cap of 0 wei"],
    ['calldata with no selectors given', policy({ txChainIds: ['31337'], txTo: [TOKEN] }), () => tx(), `policy: function selector ${TRANSFER} is not in this vault's allowed transaction selectors`],
    ['any recipient with no recipients given', policy({ txChainIds: ['31337'] }), () => tx({ data: '0x' }), `policy: recipient ${TOKEN} is not in this vault's allowed transaction recipients`],
    ['a contract creation without the switch', TX_POLICY, () => tx({ to: undefined, data: '0x6080' }), "policy: this vault's policy does not allow contract creation (--tx-contract-creation)"],
    ['a contract creation with `to: null`', TX_POLICY, () => tx({ to: null, data: '0x6080' }), "policy: this vault's policy does not allow contract creation (--tx-contract-creation)"],
    ['a contract creation over the cap', policy({ txChainIds: ['31337'], txContractCreation: true }), () => tx({ to: undefined, data: '0x6080', value: 1 }), "policy: value 1 wei is over this vault's per-transaction cap of 0 wei"],
  ])('refuses %s, naming the rule', (_what, rules, request, rule) => {
    expect(transactionViolation(rules, request())).toBe(rule);
  });

  it('allows a contract creation only with its switch (whatever recipients and selectors say)', () => {
    const creation = policy({ txChainIds: ['31337'], txContractCreation: true });
    expect(creation.transactions).toEqual({ chainIds: ['31337'], contractCreation: true });
    expect(transactionViolation(creation, tx({ to: undefined, data: '0x6080604052' }))).toBeNull();
    expect(transactionViolation(creation, tx())).toBe(`policy: recipient ${TOKEN} is not in this vault's allowed transaction recipients`);
  });

  it('lets a value equal to the cap through, and keeps caps beyond 2^53 exact', () => {
    const big = 2n ** 200n + 1n;
    const rules = policy({ txChainIds: ['31337'], txTo: [TOKEN], txSelectors: [TRANSFER], txMaxValue: big.toString() });
    expect(transactionViolation(rules, tx({ value: big.toString() }))).toBeNull();
    expect(transactionViolation(rules, tx({ value: (big + 1n).toString() }))).toMatch(/over this vault's per-transaction cap/);
  });
});

const PERMIT = asJson(permit({}, { owner: ROUTER, spender: STRANGER, value: 1n, nonce: 0n, deadline: 1n }));
const domainOf = (domain: Record<string, unknown>) => payloads.typedDataDigest({ ...PERMIT, domain }).domain;
const USDC = { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: TOKEN };

describe('typed data: deny by default, by domain', () => {
  const rules = policy({ typedDataContracts: [`1:${TOKEN.toLowerCase()}`, `0x7a69:${ROUTER}`], typedDataNames: [`1:${TOKEN}=USD Coin`] });

  it('stores the domains normalised, with the pinned name', () => {
    expect(rules.typedData).toEqual([
      { chainId: '1', verifyingContract: TOKEN, name: 'USD Coin' },
      { chainId: '31337', verifyingContract: ROUTER },
    ]);
  });

  it('allows a listed domain, its contract in any letter case; an unpinned name is any name', () => {
    expect(typedDataViolation(rules, domainOf(USDC))).toBeNull();
    expect(typedDataViolation(rules, domainOf({ ...USDC, verifyingContract: TOKEN.toLowerCase() }))).toBeNull();
    expect(typedDataViolation(rules, domainOf({ name: 'Anything', chainId: '31337', verifyingContract: ROUTER }))).toBeNull();
  });

  it.each<[string, StandardSignPolicy | null, Record<string, unknown>, string]>([
    ['no policy at all', null, USDC, "policy: this vault's policy allows no typed data (--typed-data-contracts)"],
    ['a policy of messages only', policy({ messages: true }), USDC, "policy: this vault's policy allows no typed data (--typed-data-contracts)"],
    ['a foreign verifying contract', rules, { ...USDC, verifyingContract: STRANGER }, `policy: typed-data domain 1:${STRANGER} is not in this vault's allowed typed-data contracts`],
    ['a listed contract on another chain', rules, { ...USDC, chainId: 5 }, `policy: typed-data domain 5:${TOKEN} is not in this vault's allowed typed-data contracts`],
    ['a listed pair crossed (contract of one, chain of the other)', rules, { ...USDC, chainId: 31337 }, `policy: typed-data domain 31337:${TOKEN} is not in this vault's allowed typed-data contracts`],
    ['another name than the pinned one', rules, { ...USDC, name: 'USD Coin ' }, `policy: typed-data domain name "USD Coin " is not the name allowed for 1:${TOKEN} ("USD Coin")`],
    ['no name where one is pinned', rules, { chainId: 1, verifyingContract: TOKEN }, `policy: typed-data domain name null is not the name allowed for 1:${TOKEN} ("USD Coin")`],
    ['a domain without verifying contract', rules, { name: 'USD Coin', chainId: 1 }, 'policy: typed data whose domain names no chainId or no verifyingContract is not allowed'],
    ['a domain without chain id', rules, { name: 'USD Coin', verifyingContract: TOKEN }, 'policy: typed data whose domain names no chainId or no verifyingContract is not allowed'],
  ])('refuses %s, naming the rule', (_what, given, domain, rule) => {
    expect(typedDataViolation(given, domainOf(domain))).toBe(rule);
  });
});

describe('messages: an explicit switch', () => {
  it('refuses without --messages, whatever else the policy allows', () => {
    const rule = "policy: this vault's policy does not allow personal messages (--messages)";
    expect(messageViolation(null)).toBe(rule);
    expect(messageViolation(policy({ txChainIds: ['1'], typedDataContracts: [`1:${TOKEN}`] }))).toBe(rule);
    expect(messageViolation(policy({ messages: true }))).toBeNull();
  });
});

describe('parsing the standard-signing options', () => {
  it('keeps Sign unchanged: a policy of standard rules only leaves every Sign list absent', () => {
    const only = parseSignPolicy({ messages: true, txChainIds: ['1'] }, CHAINS);
    expect(signPolicyViolation(only, { chain: 'sepolia', contract: TOKEN, selector: TRANSFER, sender: ROUTER, uniq: null })).toBeNull();
    expect(only).toEqual({ messages: true, transactions: { chainIds: ['1'] } });
  });

  it('takes a pinned name as typed after the first "=", commas and all', () => {
    expect(policy({ typedDataContracts: [`1:${TOKEN}`], typedDataNames: [`1:${TOKEN}=A, B = C`] }).typedData).toEqual([{ chainId: '1', verifyingContract: TOKEN, name: 'A, B = C' }]);
  });

  it.each<[string, SignPolicyInput, RegExp]>([
    ['recipients without chain ids', { txTo: [TOKEN] }, /^txTo: needs txChainIds/],
    ['a cap without chain ids', { txMaxValue: '1' }, /^txMaxValue: needs txChainIds/],
    ['contract creation without chain ids', { txContractCreation: true }, /^txContractCreation: needs txChainIds/],
    ['an empty chain id list', { txChainIds: [] }, /^txChainIds: must name at least one value/],
    ['chain id 0', { txChainIds: ['0'] }, /^txChainIds: "0" is not a chain id/],
    ['a chain name for a chain id', { txChainIds: ['sepolia'] }, /^txChainIds: "sepolia" is not a chain id/],
    ['a chain id beyond 64 bits', { txChainIds: [(2n ** 64n).toString()] }, /^txChainIds: .* is not a chain id/],
    ['a recipient with a bad checksum', { txChainIds: ['1'], txTo: ['0x5fbDB2315678afecb367f032d93F642f64180aa3'] }, /^txTo: .* invalid EIP-55 checksum/],
    ['a malformed selector', { txChainIds: ['1'], txSelectors: ['transfer'] }, /^txSelectors: "transfer" is not 0x followed by 8 hex digits/],
    ['a cap in ether notation', { txChainIds: ['1'], txMaxValue: '1e18' }, /^txMaxValue: "1e18" is not an amount of wei/],
    ['a negative cap', { txChainIds: ['1'], txMaxValue: '-1' }, /^txMaxValue: "-1" is not an amount of wei/],
    ['a domain without chain id', { typedDataContracts: [TOKEN] }, /^typedDataContracts: .* is not <chainId>:<verifyingContract address>/],
    ['a name for a domain not listed', { typedDataContracts: [`1:${TOKEN}`], typedDataNames: [`5:${TOKEN}=USD Coin`] }, /^typedDataNames: domain 5:.* is not in this policy's typedDataContracts/],
    ['two names for one domain', { typedDataContracts: [`1:${TOKEN}`], typedDataNames: [`1:${TOKEN}=A`, `1:${TOKEN}=B`] }, /^typedDataNames: domain .* is given two different names/],
    ['a name without a domain list', { typedDataNames: [`1:${TOKEN}=A`] }, /^typedDataNames: needs typedDataContracts/],
    ['nothing at all', {}, /give at least one of chains, contracts, selectors, senders, or a standard-signing rule/],
  ])('refuses %s, naming the option', (_what, input, error) => {
    expect(() => parseSignPolicy(input, CHAINS)).toThrow(error);
  });
});

describe('transactions: the fee is bounded like the value (issue 34, finding 1)', () => {
  const TEN_ETH = 10n * ONE_ETH;
  // value 0 to an allowed recipient, the whole balance paid as gas: the drain the fee cap stops.
  const drain = (type: 'legacy' | 'eip1559') =>
    type === 'legacy'
      ? tx({ type: 'legacy', data: '0x', gas: 21000, gasPrice: (TEN_ETH / 21000n).toString(), maxFeePerGas: undefined, maxPriorityFeePerGas: undefined })
      : tx({ data: '0x', gas: 21000, maxFeePerGas: (TEN_ETH / 21000n).toString(), maxPriorityFeePerGas: 1 });

  it('reads the fee as gas × gasPrice (legacy) or gas × maxFeePerGas (eip1559)', () => {
    expect(drain('legacy').fee).toBe(21000n * (TEN_ETH / 21000n));
    expect(tx({ gas: 100000, maxFeePerGas: 7, maxPriorityFeePerGas: 2 }).fee).toBe(700000n);
  });

  it.each(['legacy', 'eip1559'] as const)('refuses a %s transaction whose fee is over the default cap when the policy names none', (type) => {
    expect(TX_POLICY.transactions?.maxFee).toBeUndefined();
    expect(transactionViolation(TX_POLICY, drain(type))).toBe(
      `policy: fee ${drain(type).fee} wei (gas × fee per gas) is over this vault's per-transaction fee cap of ${10n ** 16n} wei (the default; raise it with --tx-max-fee)`,
    );
  });

  it('allows a fee at the cap the operator gave, and refuses one wei over it', () => {
    const capped = policy({ txChainIds: ['31337'], txTo: [TOKEN], txMaxFee: '2100000' });
    expect(capped.transactions?.maxFee).toBe('2100000');
    expect(transactionViolation(capped, tx({ data: '0x', gas: 21000, maxFeePerGas: 100, maxPriorityFeePerGas: 1 }))).toBeNull();
    expect(transactionViolation(capped, tx({ data: '0x', gas: 21001, maxFeePerGas: 100, maxPriorityFeePerGas: 1 }))).toBe(
      "policy: fee 2100100 wei (gas × fee per gas) is over this vault's per-transaction fee cap of 2100000 wei",
    );
  });

  it('refuses a fee cap that is no amount of wei, or one given without chain ids, naming the field', () => {
    expect(() => policy({ txChainIds: ['31337'], txMaxFee: '1e18' })).toThrow(/txMaxFee: "1e18" is not an amount of wei/);
    expect(() => policy({ txMaxFee: '1' })).toThrow(/txMaxFee: needs txChainIds/);
  });
});
