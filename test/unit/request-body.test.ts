import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkJsonBounds, fieldPath, type JsonBounds } from '../../adapters/http/json-shape.js';
import { parseJsonBody, parseSignBody, signBodyLimits } from '../../adapters/http/request-body.js';

/** Small bounds, so that random bodies cross each of them often (the second: depth and the count of values). */
const bounds: JsonBounds = { maxDepth: 3, maxArrayLength: 4, maxStringLength: 6, maxValues: 10 };
const shallow: JsonBounds = { maxDepth: 2, maxArrayLength: 8, maxStringLength: 3, maxValues: 6 };

/**
 * The walk as it was written first, each value's path built on the way: the specification of
 * checkJsonBounds, which writes a path only for a refusal.
 */
function namingEveryPlace(value: unknown, path: string, bounds: JsonBounds): void {
  const seen = { values: 0 };
  const walk = (value: unknown, path: string, depth: number): void => {
    if (typeof value === 'string') {
      if (value.length > bounds.maxStringLength) {
        throw new Error(`${path}: string of ${value.length} characters is longer than the limit of ${bounds.maxStringLength}`);
      }
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    if (depth > bounds.maxDepth) throw new Error(`${path}: nested deeper than the limit of ${bounds.maxDepth} levels`);
    const count = (at: string) => {
      if (++seen.values > bounds.maxValues) throw new Error(`${at}: more than the limit of ${bounds.maxValues} values (array elements and fields at any depth)`);
    };
    if (Array.isArray(value)) {
      if (value.length > bounds.maxArrayLength) throw new Error(`${path}: array of ${value.length} elements is longer than the limit of ${bounds.maxArrayLength}`);
      value.forEach((v, i) => {
        count(`${path}[${i}]`);
        walk(v, `${path}[${i}]`, depth + 1);
      });
      return;
    }
    for (const [k, v] of Object.entries(value)) {
      if (k.length > bounds.maxStringLength) throw new Error(`${path}: a key of ${k.length} characters is longer than the limit of ${bounds.maxStringLength}`);
      count(fieldPath(path, k));
      walk(v, fieldPath(path, k), depth + 1);
    }
  };
  walk(value, path, 1);
}

/** What a Sign body went through before: the scan, the parse, then both walks. */
function walkedAlways(bytes: Buffer, bounds: JsonBounds): unknown {
  const body = parseJsonBody(bytes, 'application/json', signBodyLimits(bounds));
  if (typeof body === 'object' && body !== null) {
    const { args, abi } = body as { args?: unknown; abi?: unknown };
    namingEveryPlace(args, 'args', bounds);
    namingEveryPlace(abi, 'abi', { ...bounds, maxDepth: 2 * bounds.maxDepth + 2, maxValues: Infinity });
  }
  return body;
}

const outcome = (parse: () => unknown) => {
  try {
    return { value: parse() };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

// Strings around the length limit, with escapes that make the text longer than the string.
const text = fc.oneof(
  fc.string({ maxLength: 9 }),
  fc.constantFrom('\\', '"', '\u00e9', '\ud83d\ude00', '\n', 'abcdef', 'abcdefg', '\u0000\u0001'),
  fc.array(fc.constantFrom('a', '"', '\\', '\u2028', '\u00ff'), { maxLength: 9 }).map((cs) => cs.join('')),
);
const key = fc.oneof(fc.constantFrom('args', 'abi', 'a', 'b', 'args\u0000', 'x"'), text);
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.constantFrom(null, true, false, 1.5e300),
    fc.array(tie('value'), { maxLength: 6 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 6 }).map((entries) => Object.fromEntries(entries)),
  ),
}));

/** Bodies as clients write them, and as hostile ones do: spaces, duplicate and escaped keys. */
function render(members: [string, unknown][], spaced: boolean, escapeKeys: boolean): string {
  const sp = spaced ? ' \n' : '';
  const keyText = (k: string) => (escapeKeys ? JSON.stringify(k).replace(/[a-z]/g, (ch) => `\\u00${ch.charCodeAt(0).toString(16)}`) : JSON.stringify(k));
  return `{${sp}${members.map(([k, v]) => `${keyText(k)}${sp}:${sp}${JSON.stringify(v, null, spaced ? 1 : undefined)}`).join(`,${sp}`)}${sp}}`;
}

describe('a Sign body: args and abi walked, the place of a breach written only for a refusal', () => {
  it('answers every body as the walks that built every path did: the same value or the same message', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(key, fc.constantFrom('args', 'abi')), json.value), { maxLength: 5 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(bounds, shallow),
        (members, spaced, escapeKeys, bounds) => {
          const bytes = Buffer.from(render(members, spaced, escapeKeys));
          expect(outcome(() => parseSignBody(bytes, 'application/json', bounds))).toEqual(outcome(() => walkedAlways(bytes, bounds)));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('names the same place, with the same message, as the walk that built every path', () => {
    fc.assert(
      fc.property(json.value, fc.constantFrom(bounds, shallow, { ...shallow, maxValues: Infinity }), (value, bounds) => {
        expect(outcome(() => checkJsonBounds(value, 'args', bounds))).toEqual(outcome(() => namingEveryPlace(value, 'args', bounds)));
      }),
      { numRuns: 5000 },
    );
    expect(() => checkJsonBounds([[1, 2, 3], [4, 5, 6], [7]], 'args', bounds)).not.toThrow(); // 10 values
    expect(() => checkJsonBounds([[1, 2, 3], [4, 5, 6], [7, 8]], 'args', bounds)).toThrow('args[2][1]: more than the limit of 10 values');
    expect(() => checkJsonBounds([{ 'a b': { abcdefg: 1 } }], 'args', bounds)).toThrow('args[0]["a b"]: a key of 7 characters is longer than the limit of 6');
  });

  it('still refuses what the scan alone refuses, before the parse', () => {
    const deep = `{"args":[],"extra":${'['.repeat(20)}${']'.repeat(20)}}`;
    expect(() => parseSignBody(Buffer.from(deep), 'application/json', bounds)).toThrow(`extra${'[0]'.repeat(8)}: nested deeper than the limit of 9 levels`);
    expect(() => parseSignBody(Buffer.from('{"args":[1,'), 'application/json', bounds)).toThrow('request body is not valid JSON');
  });
});
