import { describe, expect, it } from 'vitest';
import { readTypedDataDigest as typedDataDigest } from '../support/read-payloads.js';
import { TYPED_DATA_LIMITS } from '../../src/domain/signing/kinds/typed-data/typed-data.input.js';
import { checkJsonText } from '../../adapters/http/json-shape.js';
import { bodyLimits, parseJsonBody, signBodyLimits } from '../../adapters/http/request-body.js';
import { loadConfig } from '../../adapters/main/config.js';
import { abiKey, AbiFunctionCache, entryBytes, MAX_TEXT_KEY } from '../../src/application/signing/abi-function-cache.js';
import { ABI_LIMITS, parseAbiFunction } from '../../src/domain/signing/abi-function.js';
import { coerceArguments } from '../../src/domain/signing/argument-coercion.js';
import { costsBySize } from '../support/linear-cost.js';
import { SIGNATURE_PARAM as SIG } from '../support/sign-request.js';

const fn = (inputs: unknown[], name = 'f') => ({ type: 'function', name, inputs: [...inputs, SIG] });
const uint8s = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, type: 'uint8' }));

const checkJsonNesting = (text: string, maxDepth: number) => checkJsonText(text, { maxDepth, maxArrayLength: 100, maxMembers: 100, maxValues: 1000 });

describe('depth and width checked before JSON.parse (json-shape.ts)', () => {
  it('accepts the limit and refuses one level more, naming the place', () => {
    expect(() => checkJsonNesting('{"a":[[1]]}', 3)).not.toThrow();
    expect(() => checkJsonNesting('{"a":[1,[2,[3]]]}', 3)).toThrow('a[1][1]: nested deeper than the limit of 3 levels');
    expect(() => checkJsonNesting('[[[[]]]]', 3)).toThrow('[0][0][0]: nested deeper than the limit of 3 levels');
    expect(() => checkJsonNesting('{"x":1,"odd key":{"y":{"z":{}}}}', 3)).toThrow('["odd key"].y.z: nested deeper than the limit of 3 levels');
    expect(() => checkJsonNesting('[[]]', 1)).toThrow('[0]: nested deeper than the limit of 1 levels');
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(() => checkJsonNesting(JSON.stringify({ '[[[': '{{{\\"[[[', b: ['"]]]'] }), 2)).not.toThrow();
    expect(() => checkJsonNesting(JSON.stringify({ 'k"[': [[1]] }), 2)).toThrow('["k\\"["][0]: nested deeper than the limit of 2 levels');
  });

  it('refuses an array longer, or an object wider, than the limits, naming it', () => {
    const limits = { maxDepth: 4, maxArrayLength: 3, maxMembers: 2, maxValues: 100 };
    expect(() => checkJsonText('{"a":[1,2,3],"b":{"x":[],"y":"[,,,]"}}', limits)).not.toThrow();
    expect(() => checkJsonText('{"a":[1,[1,2,3,4]]}', limits)).toThrow('a[1]: array longer than the limit of 3 elements');
    expect(() => checkJsonText('{"a":1,"b":{"x":1,"y":2,"z":3}}', limits)).toThrow('b: object with more than the limit of 2 members');
    expect(() => checkJsonText('[1,2,3,4]', limits)).toThrow('body: array longer than the limit of 3 elements');
  });

  it('counts every value of the body once (elements and members, empty containers holding none)', () => {
    const limits = { maxDepth: 4, maxArrayLength: 100, maxMembers: 100, maxValues: 4 };
    expect(() => checkJsonText('{"a":[1,2],"b":[ ]}', limits)).not.toThrow();
    expect(() => checkJsonText(`{ "a" : [ 1 , 2 ] , "b" : { } }`, limits)).not.toThrow();
    expect(() => checkJsonText('{"a":[1,2],"b":[3]}', limits)).toThrow('b: more than the limit of 4 values in a request body');
    expect(() => checkJsonText('[[1,2],[3,4]]', limits)).toThrow('[1][1]: more than the limit of 4 values in a request body');
  });

  it('leaves malformed text to JSON.parse, whose refusal is the usual 400', () => {
    for (const text of [']]]', '{"a":[}', '"unterminated', '{"a":1}}}}[[[']) expect(() => checkJsonNesting(text, 2)).not.toThrow();
    expect(() => parseJsonBody(Buffer.from(']]'), 'application/json')).toThrow('request body is not valid JSON');
  });

  it('is the parse of every body: 5 000 levels, 60 000 keys or 500 000 elements are refused by the default limits', () => {
    const deep = Buffer.from(`{"name":"a","extra":${'['.repeat(5_000)}${']'.repeat(5_000)}}`);
    expect(() => parseJsonBody(deep, 'application/json')).toThrow(/^extra(\[0\]){34}: nested deeper than the limit of 35 levels$/);
    expect(parseJsonBody(Buffer.from('{"name":[[1]]}'), undefined)).toEqual({ name: [[1]] });
    const wide = `{"name":"a","extra":{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":0`).join(',')}}}`;
    expect(() => parseJsonBody(Buffer.from(wide), 'application/json')).toThrow('extra: object with more than the limit of 1024 members');
    expect(() => parseJsonBody(Buffer.from(`[${'0,'.repeat(500_000)}0]`), 'application/json')).toThrow('body: array longer than the limit of 10000 elements');
  });
});

describe('the limits of a body, from VAULT_ARGS_MAX_*', () => {
  it('defaults: 35 levels, 10 000 elements, 1 024 members; 24 576 values for Sign, 1 024 for the other routes', () => {
    const bounds = loadConfig({}).argsBounds;
    expect(bounds.maxValues).toBe(16_384);
    expect(signBodyLimits(bounds)).toEqual({ maxDepth: 35, maxArrayLength: 10_000, maxMembers: 1024, maxValues: 24_576 });
    expect(bodyLimits(bounds)).toEqual({ maxDepth: 35, maxArrayLength: 10_000, maxMembers: 1024, maxValues: 1024 });
    expect(loadConfig({ VAULT_ARGS_MAX_VALUES: '100', VAULT_ARGS_MAX_DEPTH: '4' }).argsBounds).toMatchObject({ maxValues: 100, maxDepth: 4 });
    expect(() => loadConfig({ VAULT_ARGS_MAX_VALUES: '0' })).toThrow(/VAULT_ARGS_MAX_VALUES/);
  });
});

describe('ABI items read in one pass, within ABI_LIMITS', () => {
  it.each([
    ['a type over 128 characters', [{ name: 'a', type: `uint256${'[]'.repeat(65_532)}` }], 'abi.inputs[0].type: 131071 characters is longer than the limit of 128'],
    ['9 array dimensions', [{ name: 'a', type: `bool${'[2]'.repeat(9)}` }], 'abi.inputs[0].type: more than 8 array dimensions'],
    ['a leading zero in a length', [{ name: 'a', type: 'uint8[02]' }], 'abi.inputs[0].type: invalid array length in "uint8[02]"'],
    ['a length of 7 digits', [{ name: 'a', type: 'uint8[1000000]' }], 'abi.inputs[0].type: invalid array length in "uint8[1000000]"'],
    ['an unclosed suffix', [{ name: 'a', type: 'uint8[2' }], 'abi.inputs[0].type: "uint8[2" is not a Solidity ABI type'],
    ['text after a suffix', [{ name: 'a', type: 'uint8[]x' }], 'abi.inputs[0].type: "uint8[]x" is not a Solidity ABI type'],
    ['a tuple of 257 components', [{ name: 't', type: 'tuple', components: uint8s(257) }], 'abi.inputs[0].components: 257 parameters is more than the limit of 256'],
    ['257 inputs', uint8s(256), 'abi.inputs: 257 parameters is more than the limit of 256'],
    ['a parameter name of 257 characters', [{ name: 'n'.repeat(257), type: 'bool' }], 'abi.inputs[0].name: 257 characters is longer than the limit of 256'],
  ])('refuses %s', (_label, inputs, message) => {
    expect(() => parseAbiFunction(fn(inputs))).toThrow(message);
  });

  it('refuses more than 1 024 parameters in all, naming where the count ran out', () => {
    const branch = { name: 'b', type: 'tuple[]', components: uint8s(255) };
    expect(() => parseAbiFunction(fn([branch, branch, branch, branch]))).toThrow(
      'abi.inputs[4]: the ABI item has more than 1024 parameters (inputs and components)',
    );
    expect(parseAbiFunction(fn([branch, branch, branch])).inputCount).toBe(4);
  });

  it('keeps the limits that real functions are far inside: 8 dimensions, 128 characters, 256-wide tuples', () => {
    const parsed = parseAbiFunction(fn([{ name: 'a', type: `uint[2]${'[]'.repeat(7)}` }, { name: 't', type: 'tuple', components: uint8s(256) }]));
    expect(parsed.argParams[0]!.type).toBe(`uint256[2]${'[]'.repeat(7)}`);
    expect(ABI_LIMITS).toMatchObject({ maxTypeLength: 128, maxArrayDimensions: 8, maxWidth: 256, maxParams: 1024 });
  });
});

describe('argument checks are linear', () => {
  const tuple = (components: { name: string; type: string }[]) => parseAbiFunction(fn([{ name: 't', type: 'tuple', components }])).argParams;

  it('a tuple given an object of 60 000 keys is refused at its first unknown key', () => {
    const keys = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 1]));
    expect(() => coerceArguments([keys], tuple(uint8s(3)))).toThrow('args[0] ((uint8,uint8,uint8)): unknown field "k0"');
    const named = Object.fromEntries(uint8s(256).map((c, i) => [c.name, i]));
    expect(coerceArguments([named], tuple(uint8s(256)))[0]).toHaveLength(256);
  });

  it('a field is present only as the object\'s own: `toString` is missing, not inherited', () => {
    expect(() => coerceArguments([{}], tuple([{ name: 'toString', type: 'uint8' }]))).toThrow('args[0].toString (uint8): is missing');
  });

  it('500 000 elements are checked one by one, and the one refused is named', () => {
    const params = parseAbiFunction(fn([{ name: 'xs', type: 'uint8[][]' }])).argParams;
    const rows = Array.from({ length: 50 }, () => Array<unknown>(10_000).fill(0));
    expect(coerceArguments([rows], params)[0]).toHaveLength(50);
    rows[49]![9_999] = 256;
    expect(() => coerceArguments([rows], params)).toThrow('args[0][49][9999] (uint8): 256 is out of range');
  });
});

describe('the parsed-ABI cache', () => {
  const item = (name: string, width = 3) => fn([{ name: 't', type: 'tuple', components: uint8s(width) }], name);

  it('is keyed by the JSON text, stores only what it is told to (after a sign succeeded), and serves it back', () => {
    const cache = new AbiFunctionCache();
    const first = cache.parse(item('f'));
    expect(first.cached).toBe(false);
    expect(first.key).toBe(JSON.stringify(item('f')));
    expect(cache.parse(item('f')).cached).toBe(false); // parsed, refused later: nothing kept
    expect(cache.byteSize).toBe(0);
    cache.remember(first.key, first.fn);
    expect(cache.parse(item('f'))).toEqual({ fn: first.fn, key: first.key, cached: true });
    expect(cache.byteSize).toBe(entryBytes(first.key, first.fn));
  });

  it('holds at most its bytes, dropping the least recently used, and never an item larger than the bound', () => {
    const one = entryBytes(abiKey(item('f99')), parseAbiFunction(item('f99'))); // the largest of f0..f99
    const cache = new AbiFunctionCache(10 * one);
    const store = (name: string) => {
      const { fn: parsed, key } = cache.parse(item(name));
      cache.remember(key, parsed);
      expect(cache.byteSize).toBeLessThanOrEqual(10 * one);
    };
    for (let i = 0; i < 50; i++) store(`f${i}`);
    expect(cache.size).toBe(10);
    expect(cache.parse(item('f40')).cached).toBe(true); // the oldest, now just used
    store('f50');
    expect(cache.parse(item('f41')).cached).toBe(false);
    expect(cache.parse(item('f40')).cached).toBe(true);
    for (let i = 51; i < 100; i++) store(`f${i}`);
    expect(cache.size).toBe(10);
    expect(cache.parse(item('f99')).cached).toBe(true);
    const huge = cache.parse(item('big', 256));
    cache.remember(huge.key, huge.fn);
    expect(cache.parse(item('big', 256)).cached).toBe(false);
  });

  it('keys a text over MAX_TEXT_KEY by its SHA-256, and never serves one item for another', () => {
    const long = item('long', 200);
    expect(JSON.stringify(long).length).toBeGreaterThan(MAX_TEXT_KEY);
    expect(abiKey(long)).toMatch(/^#[\w-]{43}$/);
    const cache = new AbiFunctionCache();
    // Items that differ in one character, or only in a field the parse ignores, of the same length.
    const items = [item('f'), item('g'), { ...item('f'), x: 1 }, { ...item('f'), x: 2 }, long, item('long', 201), { ...long, name: 'lonG' }];
    for (const abi of items) {
      const { key, fn: parsed } = cache.parse(abi);
      cache.remember(key, parsed);
    }
    expect(cache.size).toBe(items.length);
    for (const abi of items) {
      const hit = cache.parse(abi);
      expect(hit.cached).toBe(true);
      expect(hit.fn).toEqual(parseAbiFunction(abi));
    }
  });
});

describe('typed data read within TYPED_DATA_LIMITS, before ethers sees its types', () => {
  const fields = (n: number, type = 'uint8') => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, type }));
  /** Typed data of primary type Mail with `types` (a message the digest need not reach: the types are refused first). */
  const typed = (types: Record<string, unknown>, primaryType = 'Mail') => ({ domain: { name: 'n' }, types, primaryType, message: {} });
  const refusalOf = (input: unknown): string => {
    try {
      typedDataDigest(input);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('accepted');
  };
  /** `levels` diamonds: L_i has fields of A_i and B_i, each of which has a field of L_i+1: 2^levels paths from L0 to the last. */
  const diamonds = (levels: number) => {
    const types: Record<string, { name: string; type: string }[]> = {};
    for (let i = 0; i < levels; i++) {
      types[`L${i}`] = [{ name: 'a', type: `A${i}` }, { name: 'b', type: `B${i}` }];
      types[`A${i}`] = [{ name: 'c', type: `L${i + 1}` }];
      types[`B${i}`] = [{ name: 'c', type: `L${i + 1}` }];
    }
    types[`L${levels}`] = [{ name: 'v', type: 'uint256' }];
    return typed(types, 'L0');
  };

  it.each<[string, unknown, string]>([
    ['a field type over 256 characters', typed({ Mail: [{ name: 'a', type: `uint256${'[]'.repeat(200)}` }] }), 'types.Mail[0].type: 407 characters is longer than the limit of 256'],
    ['25 array dimensions', typed({ Mail: [{ name: 'a', type: `bool${'[2]'.repeat(25)}` }] }), 'types.Mail[0].type: more than 24 array dimensions'],
    ['a field name over 128 characters', typed({ Mail: [{ name: 'n'.repeat(129), type: 'bool' }] }), 'types.Mail[0].name: 129 characters is longer than the limit of 128'],
    ['a struct name over 128 characters', typed({ Mail: fields(1), ['S'.repeat(5000)]: fields(1) }), 'types: a type name of 5000 characters is longer than the limit of 128'],
    ['a primary type name over 128 characters', typed({ Mail: fields(1) }, 'M'.repeat(1 << 20)), 'primaryType: 1048576 characters is longer than the limit of 128'],
    ['a struct of 257 fields', typed({ Mail: fields(257) }), 'types.Mail: 257 fields is more than the limit of 256'],
    ['33 types', typed(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`T${i}`, fields(1)]))), 'types: 33 types is more than the limit of 32'],
    ['513 fields in all', typed(Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`T${i}`, fields(171)]))), 'types.T2: more than 512 fields in all the types'],
    // 4 + 129 characters a field: the 64th goes over.
    ['more than 8 192 characters of names and types', typed({ Mail: Array.from({ length: 70 }, (_, i) => ({ name: `${'n'.repeat(117)}${String(i).padStart(3, '0')}`, type: 'uint256[]' })) }), 'types.Mail[63]: more than 8192 characters of names and types in all the types'],
    ['types that reach a struct along 2^10 paths', diamonds(10), 'types: L0 reaches its structs along more than 1024 paths (a struct used by several types counts once for each way to it)'],
    ['a circular type reference', typed({ Mail: [{ name: 'a', type: 'Loop[]' }], Loop: [{ name: 'b', type: 'Mail' }] }), 'types: circular type reference to "Mail"'],
    ['a circle below the primary type', typed({ Mail: [{ name: 'a', type: 'A' }], A: [{ name: 'b', type: 'B[2]' }, { name: 'c', type: 'C' }], B: [{ name: 'a', type: 'A' }], C: fields(1) }), 'types: circular type reference to "A"'],
  ])('refuses %s, naming the field and the limit', (_what, input, message) => {
    expect(refusalOf(input)).toBe(message);
  });

  it('keeps the limits that real typed data is far inside: 32 types, 256 fields, 24 dimensions (a Seaport bulk order), 128-character names', () => {
    expect(TYPED_DATA_LIMITS).toEqual({
      maxTypes: 32, maxFields: 256, maxFieldsInAll: 512, maxTypesText: 8192, maxNameLength: 128, maxTypeLength: 256, maxArrayDimensions: 24, maxTypePaths: 1024,
    });
    // At each limit, accepted: a primary type whose 31 structs are each reached once, 24 dimensions, the longest names.
    const name = 'N'.repeat(128);
    const tree = Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`T${i}`, fields(1)]));
    const primary = [...Object.keys(tree).map((t) => ({ name: `x${t}`, type: `${t}[]` })), { name, type: `uint8${'[1]'.repeat(24)}` }];
    const nested = Array.from({ length: 24 }).reduce<unknown>((inner) => [inner], 1);
    const message = { ...Object.fromEntries(Object.keys(tree).map((t) => [`x${t}`, []])), [name]: nested };
    expect(typedDataDigest({ ...typed({ ...tree, [name]: primary }, name), message }).primaryType).toBe(name);
    // 8 levels of diamonds: 1 021 paths, under the bound (9 levels are 2 045).
    expect(() => typedDataDigest(diamonds(8))).toThrow(/^message: /);
    expect(refusalOf(diamonds(9))).toMatch(/^types: L0 reaches its structs along more than 1024 paths/);
  });

  it('types that reach their structs along exponentially many paths cost a linear scan of their text (ethers walks every path)', () => {
    /** `n` structs, each with a field of every later one: 2^(n-1) paths from the first to the last. */
    const everyLater = (n: number) =>
      typed(Object.fromEntries(Array.from({ length: n }, (_, i) => [`T${i}`, [{ name: 'v', type: 'uint8' }, ...Array.from({ length: n - 1 - i }, (_, j) => ({ name: `t${i + 1 + j}`, type: `T${i + 1 + j}` }))]])), 'T0');
    const sizes = [4, 8, 12, 16, 20, 24, 28, 32];
    const verdicts = costsBySize(sizes, everyLater, (input) => JSON.stringify(input), (input) => {
      try {
        typedDataDigest(input);
      } catch {
        // refused: what it cost is the point
      }
    });
    expect(verdicts.filter((v) => !v.withinBound)).toEqual([]);
    expect(verdicts).toHaveLength(sizes.length);
    expect(refusalOf(everyLater(31))).toBe('types: T0 reaches its structs along more than 1024 paths (a struct used by several types counts once for each way to it)');
  });
});
