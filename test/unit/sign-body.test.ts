import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../adapters/http/json-body.js';
import { checkJsonBounds, withinJsonBounds, type JsonBounds } from '../../adapters/http/json-bounds.js';
import { signBodyLimits } from '../../adapters/http/json-nesting.js';
import { parseSignBody } from '../../adapters/http/sign-body.js';

/** Small bounds, so that random bodies cross each of them often (the second: depth and the count of values). */
const bounds: JsonBounds = { maxDepth: 3, maxArrayLength: 4, maxStringLength: 6, maxValues: 10 };
const shallow: JsonBounds = { maxDepth: 2, maxArrayLength: 8, maxStringLength: 3, maxValues: 6 };

/** What a Sign body went through before: the scan, the parse, then both walks naming every place on the way. */
function walkedAlways(bytes: Buffer, bounds: JsonBounds): unknown {
  const body = parseJsonBody(bytes, 'application/json', signBodyLimits(bounds));
  if (typeof body === 'object' && body !== null) {
    const { args, abi } = body as { args?: unknown; abi?: unknown };
    checkJsonBounds(args, 'args', bounds);
    checkJsonBounds(abi, 'abi', { ...bounds, maxDepth: 2 * bounds.maxDepth + 2, maxValues: Infinity });
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

describe('a Sign body: args and abi walked for their message only when they break their bounds', () => {
  it('answers every body as the walks that named every place did: the same value or the same message', () => {
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

  it('walks without naming places exactly as the walk that names them: accepts what it accepts', () => {
    fc.assert(
      fc.property(json.value, fc.constantFrom(bounds, shallow, { ...shallow, maxValues: Infinity }), (value, bounds) => {
        expect(withinJsonBounds(value, bounds)).toBe(outcome(() => checkJsonBounds(value, 'args', bounds)).error === undefined);
      }),
      { numRuns: 5000 },
    );
    expect(withinJsonBounds([[1, 2, 3], [4, 5, 6], [7]], bounds)).toBe(true); // 10 values
    expect(withinJsonBounds([[1, 2, 3], [4, 5, 6], [7, 8]], bounds)).toBe(false); // 11
    expect(withinJsonBounds({ abcdefg: 1 }, bounds)).toBe(false); // a key of 7 characters
  });

  it('still refuses what the scan alone refuses, before the parse', () => {
    const deep = `{"args":[],"extra":${'['.repeat(20)}${']'.repeat(20)}}`;
    expect(() => parseSignBody(Buffer.from(deep), 'application/json', bounds)).toThrow(`extra${'[0]'.repeat(8)}: nested deeper than the limit of 9 levels`);
    expect(() => parseSignBody(Buffer.from('{"args":[1,'), 'application/json', bounds)).toThrow('request body is not valid JSON');
  });
});
