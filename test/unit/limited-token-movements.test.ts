import { Interface } from 'ethers';
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeArguments } from '../../adapters/ethereum/calldata.js';
import { parsePolicyDocument } from '../../src/domain/policy/policy-document.parse.js';
import { evaluatePolicy } from '../../src/domain/policy/policy-evaluation.js';
import { limitDemands } from '../../src/domain/policy/policy-limits.js';
import { NO_FACTS, type SignIntent } from '../../src/domain/policy/sign-intent.js';
import { parseAbiFunction } from '../../src/domain/signing/abi-function.js';
import type { HexString } from '../../src/ports/standard-payloads.port.js';

/**
 * A limit on a token fails closed: whatever reaches the token (a transaction, a Sign call, typed data of
 * its domain, an authorization delegating to it) and is not a movement the evaluator can read is more
 * than any limit, and is refused unless the limit names the function (or primary type) and says which
 * argument (or field) is the amount it moves.
 */
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const SPENDER = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const MAX = (1n << 256n) - 1n;
const abi = new Interface([
  'function transfer(address to, uint256 amount)',
  'function approve(address spender, uint256 amount)',
  'function increaseAllowance(address spender, uint256 addedValue)',
  'function decreaseAllowance(address spender, uint256 subtractedValue)',
  'function transferAndCall(address to, uint256 value, bytes data)',
  'function send(address to, uint256 amount, bytes data)',
  'function safeTransferFrom(address from, address to, uint256 id)',
]);

const LIMIT = { id: 'token-daily', token: TOKEN, maxValue: '1000', per: '1d' };
const documentOf = (limit: Record<string, unknown> = {}, rules: unknown[] = [{ id: 'token', effect: 'allow', kinds: ['transaction'], contracts: [TOKEN] }]) =>
  parsePolicyDocument({ version: 2, rules, limits: [{ ...LIMIT, ...limit }] }, { chains: [] });

/** A transaction from WALLET to `to` with `data`, its calldata decoded by the adapter's decoder. */
const transaction = (data: string, to: string = TOKEN): SignIntent => {
  const hex = data.toLowerCase() as HexString;
  return {
    ...NO_FACTS,
    kind: 'transaction',
    chain: null,
    chainId: '1',
    wallet: WALLET,
    contract: to,
    selector: hex.length >= 10 ? hex.slice(0, 10) : null,
    decodeCalldata: (fn) => decodeArguments(fn, hex),
    shortData: hex !== '0x' && hex.length < 10,
  };
};
const calling = (name: string, args: unknown[]) => transaction(abi.encodeFunctionData(name, args));
const amountsOf = (document: ReturnType<typeof documentOf>, intent: SignIntent) =>
  limitDemands(document, intent, 'v').flatMap((d) => (d.value === undefined ? [] : [d.value.amount]));

describe('a transaction to a limited token that is not a movement the evaluator reads counts as more than any limit', () => {
  const document = documentOf();

  it('increaseAllowance(spender, max) is refused, naming the limit, the selector and why', () => {
    const intent = calling('increaseAllowance', [SPENDER, MAX]);
    const decision = evaluatePolicy(document, intent);
    expect(decision.decision).toBe('deny');
    expect(decision.message).toBe(
      `policy: limit token-daily counts token ${TOKEN} and cannot read what this transaction moves of it: selector 0x39509351 is not a movement it knows ` +
        '(transfer, transferFrom, approve; others are named in the limit\'s moves), so it counts as more than the limit',
    );
    // Counted alone, it never fits either.
    expect(amountsOf(document, intent)).toEqual([1n << 256n]);
  });

  it('transferAndCall(to, 1e15, 0x) is refused', () => {
    const decision = evaluatePolicy(document, calling('transferAndCall', [SPENDER, 10n ** 15n, '0x']));
    expect(decision).toMatchObject({ decision: 'deny', rule: null, message: expect.stringContaining('selector 0x4000aea0 is not a movement it knows') });
  });

  it('an unknown selector, ERC-777 send, ERC-721 safeTransferFrom and a plain send to the token are refused alike', () => {
    for (const intent of [transaction('0xdeadbeef'), calling('send', [SPENDER, 5n, '0x']), calling('safeTransferFrom', [WALLET, SPENDER, 5n])]) {
      expect(evaluatePolicy(document, intent)).toMatchObject({ decision: 'deny', message: expect.stringContaining(`selector ${intent.selector} is not a movement it knows`) });
    }
    // Without calldata the token's receive or fallback function runs: nothing the evaluator can read either.
    expect(evaluatePolicy(document, transaction('0x'))).toMatchObject({ decision: 'deny', message: expect.stringContaining('a transaction without calldata is not a movement it knows') });
  });

  it('calldata of a known movement that does not decode is refused too, where it used to wait for the counter', () => {
    const truncated = abi.encodeFunctionData('transfer', [SPENDER, 5n]).slice(0, 40);
    expect(evaluatePolicy(document, transaction(truncated))).toMatchObject({ decision: 'deny', message: expect.stringContaining('its calldata does not decode as transfer(address,uint256)') });
  });

  it('the known movements are counted at their amount as before, and what goes elsewhere is not counted', () => {
    expect(evaluatePolicy(document, calling('transfer', [SPENDER, 500n])).decision).toBe('allow');
    expect(amountsOf(document, calling('transfer', [SPENDER, 500n]))).toEqual([500n]);
    expect(amountsOf(document, calling('approve', [SPENDER, MAX]))).toEqual([MAX]);
    const elsewhere = documentOf({}, [{ id: 'any', effect: 'allow', kinds: ['transaction'] }]);
    expect(evaluatePolicy(elsewhere, transaction('0xdeadbeef', SPENDER)).decision).toBe('allow');
    expect(amountsOf(elsewhere, transaction('0xdeadbeef', SPENDER))).toEqual([]);
  });

  it('a limit whose filters leave the request out does not refuse it', () => {
    const typedOnly = documentOf({ kinds: ['typed-data'] });
    expect(evaluatePolicy(typedOnly, calling('increaseAllowance', [SPENDER, MAX])).decision).toBe('allow');
  });

  it('a request no rule allows is refused by the rules, as before: the nearest rule is named', () => {
    const decision = evaluatePolicy(documentOf({}, [{ id: 'elsewhere', effect: 'allow', kinds: ['transaction'], contracts: [SPENDER] }]), calling('increaseAllowance', [SPENDER, MAX]));
    expect(decision.message).toMatch(/^policy: no rule of this vault's policy allows this transaction \(rule elsewhere: recipient/);
  });

  it('a hold is refused up front rather than stored as a request no quorum could release', () => {
    const held = documentOf({}, [{ id: 'held', effect: { hold: { required: 2 } }, kinds: ['transaction'], contracts: [TOKEN] }]);
    expect(evaluatePolicy(held, calling('increaseAllowance', [SPENDER, 1n])).decision).toBe('deny');
  });
});

describe('every kind that reaches the token fails closed', () => {
  const document = documentOf({}, [{ id: 'all', effect: 'allow', kinds: ['call', 'typed-data', 'transaction', 'authorization'] }]);

  it('typed data of the token\'s domain of a primary type that is not a known movement', () => {
    const intent: SignIntent = { ...NO_FACTS, kind: 'typed-data', chainId: '1', wallet: WALLET, contract: TOKEN, typedData: { primaryType: 'Delegation', domainName: 'USD Coin', message: { delegatee: SPENDER } } };
    expect(evaluatePolicy(document, intent)).toMatchObject({ decision: 'deny', message: expect.stringContaining('primary type "Delegation" is not a movement it knows') });
    const permit: SignIntent = { ...intent, typedData: { primaryType: 'Permit', domainName: 'USD Coin', message: { spender: SPENDER, value: '10' } } };
    expect(evaluatePolicy(document, permit).decision).toBe('allow');
    expect(amountsOf(document, permit)).toEqual([10n]);
  });

  it('a Sign call to the token of a function the limit does not name', () => {
    const fn = parseAbiFunction({
      type: 'function',
      name: 'transfer',
      inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }, { name: 'sig', type: 'tuple', components: ['bytes32', 'bytes32', 'bytes32', 'uint8'].map((type) => ({ name: '', type })) }],
    });
    const intent: SignIntent = { ...NO_FACTS, kind: 'call', chain: 'local', wallet: WALLET, contract: TOKEN, selector: fn.selector, call: { fn, args: [SPENDER, 5n] } };
    expect(evaluatePolicy(document, intent)).toMatchObject({ decision: 'deny', message: expect.stringContaining(`function ${fn.signature} is not a movement it knows`) });
    // Named with its signature parameter, as its ABI has it, it is counted at the amount it carries.
    const named = documentOf({ moves: [{ function: 'transfer(address to, uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)', amount: 'amount', recipient: 'to' }] }, [{ id: 'calls', effect: 'allow', kinds: ['call'] }]);
    expect(evaluatePolicy(named, intent).decision).toBe('allow');
    expect(amountsOf(named, intent)).toEqual([5n]);
  });

  it('an EIP-7702 authorization delegating the wallet to the token', () => {
    const intent: SignIntent = { ...NO_FACTS, kind: 'authorization', chainId: '1', wallet: WALLET, contract: TOKEN };
    expect(evaluatePolicy(document, intent)).toMatchObject({ decision: 'deny', message: expect.stringContaining('an authorization delegating to the token is not a movement it knows') });
  });
});

describe('a limit names another movement of its token: its function (or primary type) and which argument is the amount', () => {
  // Read before each test, not at collection: a document the parser refuses then fails the tests, not the file.
  let named: ReturnType<typeof documentOf>;
  beforeEach(() => {
    named = documentOf({
      moves: [
        { function: 'increaseAllowance(address spender, uint256 addedValue)', amount: 'addedValue', recipient: 'spender' },
        { function: 'decreaseAllowance(address spender, uint256 subtractedValue)', amount: 0 },
        { function: '0x', amount: 0 },
        { primaryType: 'Delegation', amount: 0 },
        { primaryType: 'Grant', amount: 'grant.amount', recipient: 'grant.to' },
      ],
      each: 'recipient',
    });
  });

  it('is counted at the amount its argument holds, for the recipient its argument names', () => {
    const intent = calling('increaseAllowance', [SPENDER, 700n]);
    expect(evaluatePolicy(named, intent).decision).toBe('allow');
    const [demand] = limitDemands(named, intent, 'v');
    expect(demand).toMatchObject({ key: `v/value:${TOKEN}:token-daily/${SPENDER.toLowerCase()}/86400000`, value: { amount: 700n, max: 1000n } });
    expect(amountsOf(named, calling('increaseAllowance', [SPENDER, MAX]))).toEqual([MAX]);
  });

  it('amount 0: the operator says it moves none of the token, so it is allowed and counted as nothing', () => {
    for (const intent of [calling('decreaseAllowance', [SPENDER, 5n]), transaction('0x')]) {
      expect(evaluatePolicy(named, intent).decision).toBe('allow');
      expect(amountsOf(named, intent)).toEqual([]);
    }
    const delegation: SignIntent = { ...NO_FACTS, kind: 'typed-data', chainId: '1', wallet: WALLET, contract: TOKEN, typedData: { primaryType: 'Delegation', domainName: null, message: {} } };
    expect(evaluatePolicy(documentOf({ moves: [{ primaryType: 'Delegation', amount: 0 }] }, [{ id: 't', effect: 'allow', kinds: ['typed-data'] }]), delegation).decision).toBe('allow');
  });

  it('typed data: the amount read from the field named; a field that is not an integer cannot be read', () => {
    const grant = (amount: unknown): SignIntent => ({ ...NO_FACTS, kind: 'typed-data', chainId: '1', wallet: WALLET, contract: TOKEN, typedData: { primaryType: 'Grant', domainName: null, message: { grant: { amount, to: SPENDER } } } });
    const typed = documentOf({ moves: [{ primaryType: 'Grant', amount: 'grant.amount', recipient: 'grant.to' }] }, [{ id: 't', effect: 'allow', kinds: ['typed-data'] }]);
    expect(amountsOf(typed, grant('42'))).toEqual([42n]);
    expect(evaluatePolicy(typed, grant('lots'))).toMatchObject({ decision: 'deny', message: expect.stringContaining('message field grant.amount is not an amount') });
  });

  it('a named function whose calldata does not decode is refused', () => {
    const truncated = abi.encodeFunctionData('increaseAllowance', [SPENDER, 5n]).slice(0, 40);
    expect(evaluatePolicy(named, transaction(truncated))).toMatchObject({ decision: 'deny', message: expect.stringContaining('does not decode as increaseAllowance(address,uint256)') });
  });

  it('the document refuses a movement it could not read, naming the field', () => {
    const refused = (moves: unknown, limit: Record<string, unknown> = {}) => () => documentOf({ moves, ...limit });
    expect(refused([{ function: 'increaseAllowance(address spender, uint256 addedValue)', amount: 'addedValue' }], { token: undefined })).toThrow(/^limits\[0\]\.moves: names movements of the limit's token/);
    expect(refused([{ function: 'increaseAllowance(address spender, uint256 addedValue)', amount: 'spender' }])).toThrow(/^limits\[0\]\.moves\[0\]\.amount: argument spender is address, an amount is an integer/);
    expect(refused([{ function: 'increaseAllowance(address spender, uint256 addedValue)', amount: 'addedValue', recipient: 'addedValue' }])).toThrow(/^limits\[0\]\.moves\[0\]\.recipient: argument addedValue is uint256, a recipient is an address/);
    expect(refused([{ function: '0x39509351', amount: 'args[1]' }])).toThrow(/^limits\[0\]\.moves\[0\]\.amount: a function given by selector alone has no types to read an amount by/);
    expect(refused([{ function: 'transfer(address to, uint256 amount)', amount: 0 }])).toThrow(/^limits\[0\]\.moves\[0\]\.function: transfer\(address,uint256\) is a movement the limit already counts/);
    expect(refused([{ primaryType: 'Permit', amount: 0 }])).toThrow(/^limits\[0\]\.moves\[0\]\.primaryType: Permit is a movement the limit already counts/);
    expect(refused([{ function: 'batch(address[] to, uint256[] amounts)', amount: 'amounts' }])).toThrow(/^limits\[0\]\.moves\[0\]\.amount: .*through an array/);
    expect(refused([{ function: '0x', amount: 0 }, { function: '0x', amount: 0 }])).toThrow(/^limits\[0\]\.moves\[1\]: names a movement moves\[0\] names already/);
    expect(refused([{ function: '0x', primaryType: 'Grant', amount: 0 }])).toThrow(/^limits\[0\]\.moves\[0\]: give exactly one of function and primaryType/);
    expect(refused([{ function: '0x', amount: '5' }])).toThrow(/^limits\[0\]\.moves\[0\]\.amount: /);
  });

  it('a document without moves reads and exports as it did: the field is only there when given', () => {
    expect(documentOf().limits[0]).toEqual({ id: 'token-daily', token: TOKEN, maxValue: '1000', per: '1d' });
    expect(named.limits[0]!.moves![0]).toEqual({ function: 'increaseAllowance(address spender, uint256 addedValue)', amount: 'addedValue', recipient: 'spender' });
  });
});
