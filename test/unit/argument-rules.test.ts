import { id, Interface, type JsonFragment } from 'ethers';
import { describe, expect, it } from 'vitest';
import { parseArgumentRules, ruleMatcher, withArgumentRules, type ArgumentRuleInput } from '../../src/domain/argument-rule-input.js';
import { ARGUMENT_RULE_LIMITS, describeArgumentRule, type ArgumentRule } from '../../src/domain/argument-rules.js';
import { parseAbiFunction, type ParsedFunction } from '../../src/domain/signing/abi-function.js';
import { coerceArguments } from '../../src/domain/signing/argument-coercion.js';
import { parseFunctionText } from '../../src/domain/signing/function-signature.js';
import { MINT_ABI, SIGNATURE_PARAM } from '../support/sign-request.js';
import { argumentRuleViolation } from '../support/legacy-decisions.js';

const SIG = SIGNATURE_PARAM;
const SIG_TEXT = '(bytes32,bytes32,bytes32,uint8)';
/** `name:type` pairs as ABI parameters. */
const params = (...specs: string[]) => specs.map((spec) => ({ name: spec.split(':')[0]!, type: spec.split(':')[1]! }));
const fnAbi = (name: string, inputs: unknown[]) => ({ type: 'function', name, inputs });
const ITEM = params('token:address', 'amount:uint96', 'data:bytes');
/** The shapes of test/chain/contracts/SignableTarget.sol, as its ABI gives them. */
const ABI = {
  mint: MINT_ABI,
  first: fnAbi('first', [SIG, ...params('a:uint8', 'b:int256', 'c:bool')]),
  middle: fnAbi('middle', [...params('a:bytes32'), SIG, ...params('memo:string', 'blob:bytes')]),
  arrays: fnAbi('arrays', [...params('xs:uint256[]', 'pair:address[2]', 'nested:uint16[][]', 'grid:bytes32[2][]', 'words:string[]'), SIG]),
  structs: fnAbi('structs', [
    { name: 'order', type: 'tuple', components: [...params('id:uint64'), { name: 'item', type: 'tuple', components: ITEM }, ...params('memo:string')] },
    { name: 'items', type: 'tuple[]', components: ITEM },
    SIG,
  ]),
};
const MINT_SIGNATURE = `mint(address,uint256,${SIG_TEXT})`;
const MINT_TEXT = `mint(address to, uint256 amount, ${SIG_TEXT} sig)`;
const STRUCTS_TEXT = `structs((uint64 id, (address token, uint96 amount, bytes data) item, string memo) order, tuple(address token, uint96 amount, bytes data)[] items, ${SIG_TEXT} sig)`;
const TOKEN = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const fns = Object.fromEntries(Object.entries(ABI).map(([k, v]) => [k, parseAbiFunction(v)])) as Record<keyof typeof ABI, ParsedFunction>;

const rules = (input: ArgumentRuleInput) => parseArgumentRules(input);
/** The violation of `ruleInput` for a sign of `fn` with `args` as a client sends them. */
const verdict = (ruleInput: ArgumentRuleInput | ArgumentRule[], fn: keyof typeof ABI, args: unknown[], abi: unknown = ABI[fn]) => {
  const parsed = parseAbiFunction(abi);
  return argumentRuleViolation(Array.isArray(ruleInput) ? ruleInput : rules(ruleInput), parsed, coerceArguments(args, parsed.argParams));
};

describe('function text', () => {
  it('gives the selector and canonical signature the vault computes, with or without names, tuple keyword and locations', () => {
    for (const text of [MINT_TEXT, MINT_SIGNATURE, `function mint(address to, uint amount, tuple(bytes32 nonce, bytes32 r, bytes32 s, uint8 v) calldata sig)`, JSON.stringify(ABI.mint)]) {
      const fn = parseFunctionText(text);
      expect(fn.signature).toBe(MINT_SIGNATURE);
      expect(fn.selector).toBe(id(MINT_SIGNATURE).slice(0, 10));
    }
    expect(parseFunctionText(STRUCTS_TEXT).selector).toBe(fns.structs.selector);
    // As ethers writes it out, and as Solidity declares it (modifiers and returns are not in the selector).
    const full = Interface.from([ABI.structs as JsonFragment]).getFunction('structs')!.format('full');
    expect(full).toMatch(/^function structs\(\(uint64 id, \(address token/);
    expect(parseFunctionText(full).signature).toBe(fns.structs.signature);
    expect(parseFunctionText(`function mint(address to, uint256 amount, ${SIG_TEXT} calldata sig) external payable returns (bool ok)`).signature).toBe(MINT_SIGNATURE);
    expect(parseFunctionText(`arrays(uint256[] xs, address[2] pair, uint16[][] nested, bytes32[2][] grid, string[] words, ${SIG_TEXT} sig)`).selector).toBe(fns.arrays.selector);
  });

  it('names a bad type by its place in the text', () => {
    expect(() => parseFunctionText(`mint(addr3ss to, ${SIG_TEXT} sig)`)).toThrow(/^function: inputs\[0\]\.type: "addr3ss" is not a Solidity ABI type$/);
  });

  it('refuses a function without the signature parameter, saying how to write it', () => {
    expect(() => parseFunctionText('transfer(address to, uint256 amount)')).toThrow(
      /has no signature parameter.*e\.g\. transfer\(address to, uint256 amount, \(bytes32,bytes32,bytes32,uint8\) sig\)$/,
    );
  });

  it.each(['mint(address', 'mint address,uint256)', '(address)', 'mint(address,,uint256)', 'mint(address) extra', 'mint(addr3ss x, (bytes32,bytes32,bytes32,uint8))', '{"type":'])(
    'refuses text that is not a function: %s',
    (text) => {
      expect(() => parseFunctionText(text)).toThrow(/^function: /);
    },
  );
});

describe('adding rules: the function must parse, the argument exist and its type fit', () => {
  it('resolves a name to its position and keeps both', () => {
    expect(rules({ function: MINT_TEXT, arg: 'amount', lte: '1000' })).toEqual([
      { selector: fns.mint.selector, signature: MINT_SIGNATURE, path: [1], name: 'amount', op: 'lte', values: ['1000'] },
    ]);
  });

  it('names the same argument by name, by position, dotted or bracketed', () => {
    const by = (arg: string) => rules({ function: STRUCTS_TEXT, arg, lte: '5' })[0]!.path;
    expect(by('order.item.amount')).toEqual([0, 1, 1]);
    expect(by('0.1.1')).toEqual([0, 1, 1]);
    expect(by('args[0][1][1]')).toEqual([0, 1, 1]);
    // Arrays on the way are walked: items.amount is the amount of every item.
    expect(by('items.amount')).toEqual([1, 1]);
  });

  it('a selector alone takes positions only: names are the client\'s to choose', () => {
    expect(rules({ function: fns.mint.selector.toUpperCase().replace('0X', '0x'), arg: '1', lte: '0x10' })).toEqual([
      { selector: fns.mint.selector, path: [1], op: 'lte', values: ['16'] },
    ]);
    expect(() => rules({ function: fns.mint.selector, arg: 'amount', lte: '1' })).toThrow(/^arg: "amount" is a name, and a selector says nothing of names/);
  });

  it('one rule per operator given, values normalised to the argument\'s type', () => {
    const added = rules({ function: MINT_TEXT, arg: 'amount', gte: '1', lte: '1000', in: ['0x10', '16', '5'] });
    expect(added.map((r) => [r.op, r.values])).toEqual([
      ['in', ['16', '5']],
      ['lte', ['1000']],
      ['gte', ['1']],
    ]);
    expect(rules({ function: MINT_TEXT, arg: 'to', eq: TOKEN.toLowerCase() })[0]!.values).toEqual([TOKEN]);
    expect(rules({ function: MINT_TEXT, arg: 'to', addressIn: [TOKEN.toUpperCase().replace('0X', '0x'), OTHER] })[0]!.values).toEqual([TOKEN, OTHER]);
    expect(rules({ function: STRUCTS_TEXT, arg: 'order.item.data', bytesPrefix: '0xABCD' })[0]!.values).toEqual(['0xabcd']);
  });

  it.each<[string, ArgumentRuleInput, RegExp]>([
    ['an unknown name', { function: MINT_TEXT, arg: 'amout', lte: '1' }, /^arg: "amout" is not one of mint's arguments \(the signature parameter not counted\): to, amount$/],
    ['a position past the end', { function: MINT_TEXT, arg: '2', lte: '1' }, /^arg: 2 is not one of mint's arguments/],
    ['a component of a non-tuple', { function: MINT_TEXT, arg: 'amount.x', lte: '1' }, /^arg: amount is uint256, it has no component "x"/],
    ['a name where the text has none', { function: MINT_SIGNATURE, arg: 'amount', lte: '1' }, /^arg: "amount" is not one of mint's arguments.*: 0, 1$/],
    ['lte on an address', { function: MINT_TEXT, arg: 'to', lte: '1' }, /^lte: argument to is address, the rule compares integers$/],
    ['address-in on a uint', { function: MINT_TEXT, arg: 'amount', addressIn: [TOKEN] }, /^addressIn: argument amount is uint256, the rule lists addresses$/],
    ['bytes-prefix on a string', { function: STRUCTS_TEXT, arg: 'order.memo', bytesPrefix: '0x01' }, /^bytesPrefix: .* the rule compares bytes$/],
    ['max-length on a fixed array', { function: `arrays(uint256[] xs, address[2] pair, uint16[][] nested, bytes32[2][] grid, string[] words, ${SIG_TEXT} sig)`, arg: 'pair', maxLength: '1' }, /^maxLength: argument pair is address\[2\], the rule measures bytes, string or a dynamic array/],
    ['eq on a whole tuple', { function: STRUCTS_TEXT, arg: 'order.item', eq: '1' }, /^eq: argument order\.item is tuple, .*\(name a component of the tuple\)$/],
    ['a bound that is not an integer', { function: MINT_TEXT, arg: 'amount', lte: '1e3' }, /^lte: "1e3" is not an integer/],
    ['an eq value outside the type', { function: STRUCTS_TEXT, arg: 'order.id', eq: String(2n ** 64n) }, /^eq: 18446744073709551616 is outside the range of uint64/],
    ['a bad address', { function: MINT_TEXT, arg: 'to', eq: '0x1234' }, /^eq: "0x1234" is not a 0x-prefixed 20-byte hex address/],
    ['an empty prefix', { function: STRUCTS_TEXT, arg: 'order.item.data', bytesPrefix: '0x' }, /^bytesPrefix: "0x" is not 0x-prefixed hex of at least one byte/],
    ['no operator', { function: MINT_TEXT, arg: 'amount' }, /^rule: give at least one of/],
    ['a path of garbage', { function: MINT_TEXT, arg: 'amount[0]', lte: '1' }, /^arg: "amount\[0\]" is not a name/],
  ])('refuses %s', (_case, input, message) => {
    expect(() => rules(input)).toThrow(message);
  });

  it('keeps a rule once, and at most the limit per policy', () => {
    const one = rules({ function: MINT_TEXT, arg: 'amount', lte: '1000' });
    expect(withArgumentRules(one, rules({ function: MINT_TEXT, arg: 'amount', lte: '1000' }))).toEqual(one);
    const many = Array.from({ length: ARGUMENT_RULE_LIMITS.maxRules }, (_, i) => rules({ function: MINT_TEXT, arg: 'amount', lte: String(i) })[0]!);
    expect(() => withArgumentRules(many, one)).toThrow(/^rules: 257 rules is more than the limit of 256 per policy$/);
    const list = (from: number) => Array.from({ length: 1000 }, (_, i) => String(from + i));
    const lists = Array.from({ length: 10 }, (_, i) => rules({ function: MINT_TEXT, arg: 'amount', in: list(i * 1000) })[0]!);
    expect(withArgumentRules([], lists)).toHaveLength(10);
    expect(() => withArgumentRules(lists, one)).toThrow(/^rules: 10001 values in all is more than the limit of 10000 per policy$/);
  });

  it('matches rules to remove by function, or function and argument, whichever way they were named', () => {
    const held = [...rules({ function: MINT_TEXT, arg: 'amount', lte: '1000' }), ...rules({ function: MINT_TEXT, arg: 'to', eq: TOKEN })];
    expect(held.filter(ruleMatcher(fns.mint.selector, '1')).map((r) => r.op)).toEqual(['lte']);
    expect(held.filter(ruleMatcher(MINT_SIGNATURE, undefined))).toHaveLength(2);
    expect(held.filter(ruleMatcher(MINT_TEXT, 'to')).map((r) => r.op)).toEqual(['eq']);
    expect(held.filter(ruleMatcher(fns.first.selector, undefined))).toEqual([]);
  });
});

describe('checking a sign against the rules: attempts to get round them', () => {
  const lte1000 = { function: MINT_TEXT, arg: 'amount', lte: '1000' };

  it('an argument one above the bound is refused, naming the rule and the argument; the bound itself passes', () => {
    expect(verdict(lte1000, 'mint', [TOKEN, '1000'])).toBeNull();
    expect(verdict(lte1000, 'mint', [TOKEN, 1001])).toBe(`policy: args[1] amount: 1001 > 1000 (rule: ${MINT_SIGNATURE} amount lte 1000)`);
    expect(verdict({ function: MINT_TEXT, arg: 'amount', gte: '10' }, 'mint', [TOKEN, 9])).toBe(`policy: args[1] amount: 9 < 10 (rule: ${MINT_SIGNATURE} amount gte 10)`);
  });

  it('holds the same whether the rule names the function by text or by selector, the argument by name or position', () => {
    for (const rule of [lte1000, { function: MINT_SIGNATURE, arg: '1', lte: '1000' }, { function: fns.mint.selector, arg: 'args[1]', lte: '1000' }]) {
      expect(verdict(rule, 'mint', [TOKEN, '1000'])).toBeNull();
      expect(verdict(rule, 'mint', [TOKEN, '0x3e9'])).toMatch(/^policy: args\[1\]( amount)?: 1001 > 1000 \(rule: /);
    }
    expect(verdict({ function: fns.mint.selector, arg: '1', lte: '1000' }, 'mint', [TOKEN, 1001])).toBe(`policy: args[1]: 1001 > 1000 (rule: ${fns.mint.selector} args[1] lte 1000)`);
  });

  it('renaming the arguments in the request\'s ABI item changes nothing (names are not in the selector)', () => {
    const renamed = { ...ABI.mint, inputs: [{ name: 'amount', type: 'address' }, { name: 'to', type: 'uint256' }, SIG] };
    expect(verdict(lte1000, 'mint', [TOKEN, 1001], renamed)).toMatch(/^policy: args\[1\] amount: 1001 > 1000/);
  });

  it('another function with the same selector is refused, not judged by types the rule was not written for', () => {
    const added = rules(lte1000);
    const impostor: ParsedFunction = { ...parseAbiFunction({ ...ABI.mint, inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'int256' }, SIG] }), selector: fns.mint.selector };
    expect(argumentRuleViolation(added, impostor, [TOKEN, -1n])).toBe(
      `policy: function mint(address,int256,${SIG_TEXT}) has the selector of ${MINT_SIGNATURE} but is another function (rule: ${MINT_SIGNATURE} amount lte 1000)`,
    );
  });

  it('a selector-only rule fails closed on a request whose argument has another type', () => {
    const added = rules({ function: fns.mint.selector, arg: '1', lte: '1000' });
    const impostor: ParsedFunction = { ...parseAbiFunction({ ...ABI.mint, inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'bytes32' }, SIG] }), selector: fns.mint.selector };
    expect(argumentRuleViolation(added, impostor, [TOKEN, `0x${'ff'.repeat(32)}`])).toMatch(/^policy: args\[1\]: is bytes32, the rule compares integers/);
    const short: ParsedFunction = { ...parseAbiFunction({ ...ABI.mint, inputs: [{ name: 'to', type: 'address' }, SIG] }), selector: fns.mint.selector };
    expect(argumentRuleViolation(added, short, [TOKEN])).toMatch(/^policy: args\[1\]: mint\(address,.*\) has 1 arguments, the rule needs one at args\[1\]/);
  });

  it('a huge uint is compared exactly, not as a Number', () => {
    const bound = { function: MINT_TEXT, arg: 'amount', lte: String(2n ** 255n) };
    expect(verdict(bound, 'mint', [TOKEN, `0x${'ff'.repeat(32)}`])).toBe(
      `policy: args[1] amount: ${2n ** 256n - 1n} > ${2n ** 255n} (rule: ${MINT_SIGNATURE} amount lte ${2n ** 255n})`,
    );
    // 2^53 + 1 is where a Number would round down to 2^53 and pass.
    expect(verdict({ function: MINT_TEXT, arg: 'amount', lte: String(2 ** 53) }, 'mint', [TOKEN, String(2n ** 53n + 1n)])).toMatch(/: 9007199254740993 > 9007199254740992/);
  });

  it('a negative int is below a non-negative bound, and gte catches it', () => {
    const first = `first(${SIG_TEXT} sig, uint8 a, int256 b, bool c)`;
    expect(verdict({ function: first, arg: 'b', gte: '0' }, 'first', [1, '-1', true])).toMatch(/^policy: args\[1\] b: -1 < 0 /);
    expect(verdict({ function: first, arg: 'b', gte: '-5', lte: '5' }, 'first', [1, -5, true])).toBeNull();
    expect(verdict({ function: first, arg: 'c', eq: 'true' }, 'first', [1, 0, false])).toMatch(/^policy: args\[2\] c: false is not true /);
  });

  it('compares addresses whatever their case', () => {
    const allowed = { function: MINT_TEXT, arg: 'to', addressIn: [TOKEN.toLowerCase()] };
    for (const to of [TOKEN, TOKEN.toLowerCase(), `0x${TOKEN.slice(2).toUpperCase()}`]) expect(verdict(allowed, 'mint', [to, 1])).toBeNull();
    expect(verdict(allowed, 'mint', [OTHER.toLowerCase(), 1])).toBe(`policy: args[0] to: ${OTHER} is not one of ${TOKEN} (rule: ${MINT_SIGNATURE} to address-in ${TOKEN})`);
    // Typed at sign time for a selector-only rule: the value as typed, any case.
    expect(verdict({ function: fns.mint.selector, arg: '0', eq: TOKEN.toUpperCase().replace('0X', '0x') }, 'mint', [TOKEN, 1])).toBeNull();
  });

  it('reaches a nested tuple field however the tuple is given: as an object or as an array', () => {
    const rule = { function: STRUCTS_TEXT, arg: 'order.item.amount', lte: '100' };
    const item = (amount: number) => ({ token: TOKEN, amount, data: '0x' });
    expect(verdict(rule, 'structs', [{ id: 1, item: item(100), memo: '' }, []])).toBeNull();
    expect(verdict(rule, 'structs', [{ id: 1, item: item(101), memo: '' }, []])).toMatch(/^policy: args\[0\]\[1\]\[1\] order\.item\.amount: 101 > 100 /);
    expect(verdict(rule, 'structs', [[1, [TOKEN, 101, '0x'], ''], []])).toMatch(/^policy: args\[0\]\[1\]\[1\] order\.item\.amount: 101 > 100 /);
  });

  it('holds for every element of an array, naming the element that breaks it', () => {
    const rule = { function: STRUCTS_TEXT, arg: 'items.amount', lte: '100' };
    const order = { id: 1, item: { token: TOKEN, amount: 0, data: '0x' }, memo: '' };
    expect(verdict(rule, 'structs', [order, [[TOKEN, 1, '0x'], [TOKEN, 100, '0x']]])).toBeNull();
    expect(verdict(rule, 'structs', [order, [[TOKEN, 1, '0x'], { token: TOKEN, amount: 101, data: '0x' }]])).toMatch(/^policy: args\[1\]\[1\]\[1\] items\.amount: 101 > 100 /);
    expect(verdict(rule, 'structs', [order, []])).toBeNull();
    const arrays = `arrays(uint256[] xs, address[2] pair, uint16[][] nested, bytes32[2][] grid, string[] words, ${SIG_TEXT} sig)`;
    const args = (nested: number[][], pair = [TOKEN, TOKEN]) => [[1], pair, nested, [], []];
    expect(verdict({ function: arrays, arg: 'nested', lte: '9' }, 'arrays', args([[1], [], [9]]))).toBeNull();
    expect(verdict({ function: arrays, arg: 'nested', lte: '9' }, 'arrays', args([[1], [], [9, 10]]))).toMatch(/^policy: args\[2\]\[2\]\[1\] nested: 10 > 9 /);
    expect(verdict({ function: arrays, arg: 'pair', addressIn: [TOKEN] }, 'arrays', args([], [TOKEN, OTHER]))).toMatch(/^policy: args\[1\]\[1\] pair: 0x3C44.* is not one of /);
  });

  it('measures length as the contract sees it: array elements, bytes, UTF-8 bytes of a string', () => {
    const middle = `middle(bytes32 a, ${SIG_TEXT} sig, string memo, bytes blob)`;
    const a = `0x${'00'.repeat(32)}`;
    expect(verdict({ function: middle, arg: 'memo', maxLength: '3' }, 'middle', [a, 'abc', '0x'])).toBeNull();
    // 'é' is one character and two bytes.
    expect(verdict({ function: middle, arg: 'memo', maxLength: '3' }, 'middle', [a, 'abé', '0x'])).toMatch(/^policy: args\[1\] memo: length 4 > 3 /);
    expect(verdict({ function: middle, arg: 'blob', maxLength: '2' }, 'middle', [a, '', '0xaabbcc'])).toMatch(/^policy: args\[2\] blob: length 3 > 2 /);
    const arrays = `arrays(uint256[] xs, address[2] pair, uint16[][] nested, bytes32[2][] grid, string[] words, ${SIG_TEXT} sig)`;
    expect(verdict({ function: arrays, arg: 'xs', maxLength: '2' }, 'arrays', [[1, 2, 3], [TOKEN, TOKEN], [], [], []])).toMatch(/^policy: args\[0\] xs: length 3 > 2 /);
  });

  it('compares a bytes prefix whatever the case of either side', () => {
    const middle = `middle(bytes32 a, ${SIG_TEXT} sig, string memo, bytes blob)`;
    const rule = { function: middle, arg: 'blob', bytesPrefix: '0xDEAD' };
    expect(verdict(rule, 'middle', [`0x${'00'.repeat(32)}`, '', '0xdEaDbeef'])).toBeNull();
    expect(verdict(rule, 'middle', [`0x${'00'.repeat(32)}`, '', '0xdeaf'])).toMatch(/^policy: args\[2\] blob: 0xdeaf does not start with 0xdead /);
    expect(verdict({ function: middle, arg: 'a', eq: `0x${'AB'.repeat(32)}` }, 'middle', [`0x${'ab'.repeat(32)}`, '', '0x'])).toBeNull();
  });

  it('applies only to the function it names, and costs nothing without rules', () => {
    expect(verdict(lte1000, 'first', [1, 5000, true])).toBeNull();
    expect(argumentRuleViolation(undefined, fns.mint, [TOKEN, 5000n])).toBeNull();
  });

  it('describes a rule as policies show lists it, cutting long lists', () => {
    const [rule] = rules({ function: MINT_TEXT, arg: 'amount', in: ['1', '2', '3', '4', '5', '6', '7'] });
    expect(describeArgumentRule(rule!)).toBe(`${MINT_SIGNATURE} amount in 1, 2, 3, 4, 5, ... (7 values)`);
  });
});
