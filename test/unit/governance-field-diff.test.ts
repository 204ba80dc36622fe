import { describe, expect, it } from 'vitest';
import { diffLines } from '../../adapters/console-page/views.js';
import { diffStates, type GovernedState } from '../../src/domain/governance.js';
import { parsePolicyDocument } from '../../src/domain/policy/policy-document.parse.js';
import type { PolicyDocument } from '../../src/domain/policy/policy-document.js';

/* A proposal's diff names the field of a rule, a limit or the document's settings that changed, with its old and new value. */

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const parse = (rules: unknown[], extra: Record<string, unknown> = {}) =>
  parsePolicyDocument({ version: 2, rules, limits: [{ id: 'daily', maxSigns: 10, per: '1d' }], ...extra }, { chains: ['local'] });
const state = (policy: PolicyDocument): GovernedState => ({
  version: 1,
  vault: 'v1',
  previous: null,
  policy,
  governance: { required: 1, approvers: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'], delay: '0s' },
  liftedFreezes: 0,
});

describe('governance diffs name the field that changed', () => {
  const small = { id: 'usdc-small-transfers', effect: 'allow', contracts: [USDC], maxValue: '1000' };
  const before = parse([small]);

  it('a rule: the field, old and new; a field added or removed reads null on its absent side', () => {
    const after = parse([{ ...small, maxValue: '5000', description: 'Up to 5000' }]);
    const { policy } = diffStates(state(before), state(after));
    expect(policy.changed).toEqual(['rule usdc-small-transfers']);
    expect(policy.fields).toEqual([
      { entry: 'rule usdc-small-transfers', field: 'maxValue', from: '1000', to: '5000' },
      { entry: 'rule usdc-small-transfers', field: 'description', from: null, to: 'Up to 5000' },
    ]);
    expect(diffLines(diffStates(state(before), state(after)))).toContain('policy · rule usdc-small-transfers · maxValue: "1000" → "5000"');
  });

  it("a limit, and the document's settings", () => {
    const after = parsePolicyDocument(
      { version: 2, rules: [small], limits: [{ id: 'daily', maxSigns: 20, per: '1d' }], tokens: { [USDC]: { symbol: 'USDC', decimals: 6 } } },
      { chains: ['local'] },
    );
    expect(diffStates(state(before), state(after)).policy.fields).toEqual([
      { entry: 'limit daily', field: 'maxSigns', from: 10, to: 20 },
      { entry: 'document settings', field: 'tokens', from: null, to: { [USDC]: { symbol: 'USDC', decimals: 6 } } },
    ]);
  });

  it('nothing changed: no fields', () => {
    expect(diffStates(state(before), state(parse([small]))).policy).not.toHaveProperty('fields');
  });
});
