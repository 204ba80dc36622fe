import { Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import { decodeArguments } from '../../adapters/ethereum/calldata.js';
import { documentFromLegacy } from '../../src/domain/policy/legacy-policy.js';
import { parsePolicyDocument } from '../../src/domain/policy/policy-document.parse.js';
import { evaluatePolicy } from '../../src/domain/policy/policy-evaluation.js';
import { limitDemands } from '../../src/domain/policy/policy-limits.js';
import { NO_FACTS, type SignIntent } from '../../src/domain/policy/sign-intent.js';
import type { HexString } from '../../src/ports/standard-payloads.port.js';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const SPENDER = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const abi = new Interface(['function transfer(address to, uint256 amount)']);

/**
 * A transaction from WALLET to `to` (null: a creation) with `data`, its calldata decoded by the adapter's
 * decoder. A creation keeps the selector and decoder of its first bytes, as the intent was built before:
 * the evaluator must not take them for a call, whoever built the intent.
 */
const transaction = (data: string, to: string | null): SignIntent => {
  const hex = data.toLowerCase() as HexString;
  return {
    ...NO_FACTS,
    kind: 'transaction',
    chainId: '1',
    wallet: WALLET,
    contract: to,
    selector: hex.slice(0, 10),
    decodeCalldata: (fn) => decodeArguments(fn, hex),
    create: to === null,
  };
};
const calling = (name: string, args: unknown[]) => transaction(abi.encodeFunctionData(name, args), TOKEN);

describe('a contract creation is judged as a creation, never as a call of the function its init code starts with', () => {
  const creation = (data: string) => transaction(data, null);
  // Init code that happens to begin with transfer's selector and arguments, then the constructor's bytecode.
  const initCode = `${abi.encodeFunctionData('transfer', [SPENDER, 1n])}6080604052348015600f57600080fd5b50`;

  it('matches no rule naming a function, with or without conditions on its arguments', () => {
    const byFunction = parsePolicyDocument(
      { version: 2, rules: [{ id: 'small-transfers', effect: 'allow', kinds: ['transaction'], function: 'transfer(address to, uint256 amount)', where: [{ arg: 'amount', lte: '1000' }] }] },
      { chains: [] },
    );
    expect(evaluatePolicy(byFunction, creation(initCode))).toMatchObject({ decision: 'deny', rule: null, message: expect.stringContaining('rule small-transfers: it names a function, and a contract creation calls none') });
    const bySelector = parsePolicyDocument({ version: 2, rules: [{ id: 'transfers', effect: 'allow', kinds: ['transaction'], selectors: ['0xa9059cbb'] }] }, { chains: [] });
    expect(evaluatePolicy(bySelector, creation(initCode)).decision).toBe('deny');
    // The call itself is still allowed by them.
    expect(evaluatePolicy(byFunction, calling('transfer', [SPENDER, 1n])).decision).toBe('allow');
  });

  it('is allowed by a create rule, and a deny naming a function does not take it for that function', () => {
    const document = parsePolicyDocument(
      { version: 2, rules: [{ id: 'deploys', effect: 'allow', kinds: ['transaction'], create: true }, { id: 'no-transfers', effect: 'deny', selectors: ['0xa9059cbb'] }] },
      { chains: [] },
    );
    expect(evaluatePolicy(document, creation(initCode))).toMatchObject({ decision: 'allow', rule: 'deploys' });
  });

  it('a document is refused a create rule naming a function or selectors (it would match nothing); one stored before is read, and matches nothing', () => {
    const rule = { id: 'deploys', effect: 'allow', kinds: ['transaction'], create: true, selectors: ['0xa9059cbb'] };
    expect(() => parsePolicyDocument({ version: 2, rules: [rule] }, { chains: [] })).toThrow(/^rules\[0\]\.create: a contract creation calls no function .* with selectors would match none/);
    const stored = parsePolicyDocument({ version: 2, rules: [rule] }, { chains: [], strict: false });
    expect(evaluatePolicy(stored, creation(initCode)).decision).toBe('deny');
  });

  it('an approval rule of the older commands naming a function holds no creation; one naming none still holds them', () => {
    const chains = { idOf: () => null, nameOf: () => null };
    const lists = { transactions: { chainIds: ['1'], contractCreation: true } };
    const byFunction = documentFromLegacy({ ...lists, approvals: [{ id: 'a1', required: 2, selector: '0xa9059cbb' }] }, chains);
    expect(byFunction.rules.map((r) => r.id)).not.toContain('a1.contract-creation');
    expect(evaluatePolicy(byFunction, creation(initCode))).toMatchObject({ decision: 'allow', rule: 'contract-creation' });
    const every = documentFromLegacy({ ...lists, approvals: [{ id: 'a1', required: 2 }] }, chains);
    expect(evaluatePolicy(every, creation(initCode))).toMatchObject({ decision: 'hold', rule: 'a1.contract-creation' });
  });

  it('a limit naming selectors does not count it', () => {
    const document = parsePolicyDocument(
      { version: 2, rules: [{ id: 'deploys', effect: 'allow', kinds: ['transaction'], create: true }], limits: [{ id: 'transfers', selectors: ['0xa9059cbb'], maxSigns: 1, per: '1h' }] },
      { chains: [] },
    );
    expect(limitDemands(document, creation(initCode), 'v')).toEqual([]);
  });
});
