import { describe, expect, it } from 'vitest';
import { describeDocument } from '../../adapters/cli/policy-document.view.js';
import { DOCUMENT_FIELDS, LIMIT_FIELDS, parsePolicyDocument, RULE_FIELDS } from '../../src/domain/policy/policy-document.parse.js';

const C = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const T = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const W = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const MINT = 'mint(address to, uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)';

/** A document that sets every field the parser accepts, in rules that make sense together. */
const EVERY_FIELD = {
  version: 2,
  rules: [
    {
      id: 'payouts', effect: { hold: { required: 2 } }, description: 'Large payouts; two approvers', kinds: ['transaction'], chains: ['sepolia'],
      wallets: [W], contracts: [C], selectors: ['0x'], maxValue: '5000000000000000000', minValue: '1000000000000000000', maxFee: '20000000000000000',
      maxOutflow: '6000000000000000000', maxTokenOutflow: { [T]: '15000000000' },
    },
    { id: 'mints', effect: 'allow', kinds: ['call'], contracts: [C], function: MINT, senders: [W], where: [{ arg: 'amount', lte: '1000' }], unless: [{ arg: 'to', eq: W }] },
    { id: 'permits', effect: 'allow', kinds: ['typed-data'], primaryTypes: ['Permit'], domainNames: ['USD Coin'] },
    { id: 'deploys', effect: 'allow', kinds: ['transaction'], create: true, simulate: false },
    { id: 'delegations', effect: 'deny', kinds: ['authorization'], anyChain: true },
  ],
  limits: [
    {
      id: 'usdc-daily', kinds: ['transaction'], chains: ['sepolia'], wallets: [W], contracts: [T], selectors: ['0xa9059cbb'], each: 'wallet',
      maxSigns: 3, maxValue: '50000000000', token: T, per: '1d',
      moves: [{ function: 'increaseAllowance(address spender, uint256 addedValue)', amount: 'addedValue', recipient: 'spender' }],
    },
    { id: 'eth-usd', kinds: ['transaction'], maxValueUsd: '10000.50', per: '1d', onExceed: { hold: { required: 2, group: 'treasury' } } },
  ],
  prices: { native: { usd: '3150.25' } },
  priceFeeds: { [T]: { feed: W, maxAgeSeconds: 3600 } },
  uniqs: { [C]: `0x${'ab'.repeat(32)}` },
  trustRpcUniq: [T],
  contractNames: { [C]: 'Minter' },
  tokens: { [T]: { symbol: 'USDC', decimals: 6 } },
  addressNames: { [W]: 'Payroll (Acme GmbH)' },
  approvalRules: [{ id: 'a1', effect: { hold: { required: 1 } }, kinds: ['call'], contracts: [C] }],
};

const document = parsePolicyDocument(EVERY_FIELD, { chains: ['sepolia', 'ethereum'] });
const shown = describeDocument(document);
const lineOf = (id: string) => shown.split('\n').find((line) => new RegExp(`\\s${id.replace('.', '\\.')}\\s`).test(line)) ?? '';

// Issue 53: `policies show` left out a rule's maxValue and description. Every field is shown now.
describe("policies show's view of a policy document", () => {
  it('the sample sets every field the parser accepts (a new field fails here until it is shown)', () => {
    expect(new Set(EVERY_FIELD.rules.flatMap((r) => Object.keys(r)))).toEqual(RULE_FIELDS);
    expect(new Set(EVERY_FIELD.limits.flatMap((l) => Object.keys(l)))).toEqual(LIMIT_FIELDS);
    expect(new Set(Object.keys(EVERY_FIELD))).toEqual(DOCUMENT_FIELDS);
  });

  it("shows every field of every rule, named, with its value", () => {
    for (const rule of document.rules) {
      const line = lineOf(rule.id);
      expect(line, rule.id).not.toBe('');
      for (const [field, value] of Object.entries(rule)) {
        if (field === 'id' || field === 'effect') continue;
        const text = typeof value === 'string' && field !== 'description' ? value : typeof value === 'boolean' ? String(value) : JSON.stringify(value);
        expect(line, `${rule.id}.${field}`).toContain(`${field} ${text}`);
      }
    }
    expect(lineOf('payouts')).toMatch(/^ {2}hold 2 +payouts /);
    expect(lineOf('payouts')).toContain('maxValue 5000000000000000000');
    expect(lineOf('payouts')).toContain('minValue 1000000000000000000');
    expect(lineOf('payouts')).toContain('description "Large payouts; two approvers"');
  });

  it("shows every field of a limit, the document's version, pins, trusted RPCs, names and approval rules", () => {
    const limit = lineOf('usdc-daily');
    expect(limit).toContain(`at most 3 signs and 50000000000 of token ${T} per 1d for each wallet`);
    for (const field of ['kinds', 'chains', 'wallets', 'contracts', 'selectors', 'moves']) expect(limit, field).toContain(`${field} `);
    expect(shown).toMatch(/^ {2}version +2$/m);
    expect(shown).toContain(`${C} = 0x${'ab'.repeat(32)}`);
    expect(shown).toMatch(new RegExp(`RPC trusted +${T}`));
    expect(shown).toContain(`${C} = "Minter"`);
    expect(shown).toMatch(new RegExp(`token +${T} = "USDC", 6 decimals`));
    expect(shown).toMatch(new RegExp(`address name +${W} = "Payroll \\(Acme GmbH\\)"`));
    expect(lineOf('a1')).toMatch(/approval rule +a1 +hold/);
    expect(lineOf('eth-usd')).toContain('at most 10000.50 USD of the native unit per 1d; kinds ["transaction"]; onExceed {"hold":{"required":2,"group":"treasury"}}');
    expect(shown).toMatch(/price of +native = 3150\.25 USD/);
    expect(shown).toContain(`${T} = ${W} (at most 3600 s old)`);
  });
});
