import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTypedDataDigest as typedDataDigest } from '../support/read-payloads.js';
import { routeTable } from '../../adapters/http/route-matcher.js';
import { boundOf, costsBySize, regexCosts, type PatternCase, type PatternCost } from '../support/linear-cost.js';
import { adversariesOf } from '../support/regex-adversaries.js';
import { regexLiterals, regexLiteralsOf } from '../support/regex-literals.js';

/*
 * No regular expression of the server, the library or the client backtracks super-linearly: every literal
 * of src/, adapters/, lib/ and client/ (found in the source, so a new one is covered the day it is written),
 * and the routes' patterns built at run time, runs against inputs crafted against it from its own source
 * (test/support/regex-adversaries.ts), and
 * must cost about what a linear scan of the same input does (test/support/linear-cost.ts: a ratio with
 * slack, measured in this run). A pattern that sees no request is held to it too: it costs nothing to keep
 * every one linear, and a pattern moves to request input without anyone noticing.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MiB = 1 << 20;
/** The screen's size: large enough to rank a pattern's inputs by cost (a quadratic one goes over the bound here already), small enough to try them all. */
const SCREEN = 16_384;
/** Inputs per pattern that go on to 1 MiB: the costliest of the screen (a super-linear one is costlier by orders of magnitude). */
const WORST = 1;

/**
 * Left out, with why. The console page runs in the approver's browser, on the vault's own answers
 * (amounts are uint256 decimals of at most 78 digits): it sees no request and stalls no server.
 */
const NOT_SWEPT = ['adapters/console-page'];

const literals = regexLiterals(root, ['src', 'adapters', 'lib', 'client'], NOT_SWEPT);
/**
 * The patterns built at run time that read requests: one per route, which the request's path is matched
 * against (route-matcher.ts; the console's and the service routes are built the same way).
 */
const built = routeTable([]).vault.map((c) => ({ file: `adapters/http/route-matcher.ts (${c.route.method} ${c.route.path})`, line: 0, pattern: c.pattern.source, flags: c.pattern.flags }));
const everyPattern = [...literals, ...built];
/** One entry per distinct pattern, with where it is written. */
const patterns = [...new Set(everyPattern.map((l) => `/${l.pattern}/${l.flags}`))].map((shown) => {
  const places = everyPattern.filter((l) => `/${l.pattern}/${l.flags}` === shown);
  return { shown, pattern: places[0]!.pattern, flags: places[0]!.flags, places: places.map((p) => (p.line === 0 ? p.file : `${p.file}:${p.line}`)) };
});

const overBound = (c: PatternCost) => c.ms === null || c.ms > boundOf(c.baselineMs);
const report = (c: PatternCost) =>
  `${JSON.stringify(c.adversary)} × ${c.size} chars: ${c.ms === null ? 'stopped at the bound' : `${c.ms.toFixed(1)} ms`} (baseline ${c.baselineMs.toFixed(2)} ms)`;

describe('the lexer that finds the literals', () => {
  it('tells a regex from a division, and skips strings, templates and comments', () => {
    const source = [
      "const a = x / y / z; const b = /a\\/b[/]c/gi.test(s); // /not/",
      "const t = `/no/${ f(/yes/) }/no/${`/nested/${ /deep/u }`}`;",
      "/* /no/ */ if (ok) return /^r$/; const q = '/no/'; const d = (a) / 2; const e = arr[0] / 2;",
      'const m = text.replace(/\\s+/g, " ").split(/,/);',
    ].join('\n');
    expect(regexLiteralsOf(source)).toEqual([
      { line: 1, pattern: 'a\\/b[/]c', flags: 'gi' },
      { line: 2, pattern: 'yes', flags: '' },
      { line: 2, pattern: 'deep', flags: 'u' },
      { line: 3, pattern: '^r$', flags: '' },
      { line: 4, pattern: '\\s+', flags: 'g' },
      { line: 4, pattern: ',', flags: '' },
    ]);
  });

  it('finds the literals of the request parsers, each where it is written', () => {
    const shown = new Set(patterns.map((p) => p.shown));
    // A few of the ones that read requests, from different layers: if the lexer lost its way in a file, one of these goes.
    for (const known of ['/^0x(?:[0-9a-fA-F]{2})*$/', '/^application\\/(.+\\+)?json\\b/i', '/^(\\S+)\\s+(\\S+)$/', '/^args((?:\\[\\d{1,6}\\])+)$/']) {
      expect(shown).toContain(known);
    }
    expect(literals.length).toBeGreaterThan(150);
  });
});

/** Screens each pattern's crafted inputs, then runs the costliest at 1 MiB (of each pattern the screen passed): every case timed, in order. */
async function costsOf(list: readonly { pattern: string; flags: string }[]): Promise<PatternCost[]> {
  const casesOf = (p: { pattern: string; flags: string }) => adversariesOf(p.pattern, p.flags).map((adversary): PatternCase => ({ pattern: p.pattern, flags: p.flags, adversary }));
  const screened = await regexCosts(list.map((p) => ({ size: SCREEN, cases: casesOf(p) })));
  const ratio = (c: PatternCost) => (c.ms ?? Infinity) / c.baselineMs;
  const worstOf = (p: { pattern: string; flags: string }) =>
    screened
      .filter((c) => c.pattern === p.pattern && c.flags === p.flags)
      .filter((c, _, all) => !all.some(overBound))
      .sort((a, b) => ratio(b) - ratio(a))
      .slice(0, WORST)
      .map(({ pattern, flags, adversary }) => ({ pattern, flags, adversary }));
  const full = await regexCosts(list.map((p) => ({ size: MiB, cases: worstOf(p) })));
  return [...screened, ...full];
}

describe('the cost check itself', () => {
  it('catches the super-linear patterns it is meant to: each goes over the bound on its crafted inputs', async () => {
    const bad = [
      { pattern: '(\\[[0-9]*\\])+$', flags: '' }, // the typed-data type names' suffixes, as they were
      { pattern: '\\/+$', flags: '' }, // a trailing-slash trim
      { pattern: '^(a+)+$', flags: '' }, // nested quantifiers: exponential
      { pattern: '^(\\d|\\d\\d)+$', flags: '' }, // overlapping alternatives: exponential
      { pattern: '\\B(?=(\\d{3})+(?!\\d))', flags: 'g' }, // thousands separators: a lookahead to the end from every digit
    ];
    const costs = await costsOf(bad);
    for (const p of bad) expect(costs.some((c) => c.pattern === p.pattern && overBound(c)), p.pattern).toBe(true);
  }, 120_000);
});

describe('every regular expression literal costs a linear scan on inputs crafted against it', () => {
  it(`${patterns.length} patterns, each on its crafted inputs: screened at ${SCREEN} characters, the costliest at 1 MiB`, async () => {
    const costs = await costsOf(patterns);
    const failures = costs.filter(overBound).map((c) => {
      const p = patterns.find((q) => q.pattern === c.pattern && q.flags === c.flags)!;
      return `${p.shown} (${p.places.join(', ')}): ${report(c)}`;
    });
    expect([...new Set(failures)]).toEqual([]);
    // Every pattern reached 1 MiB.
    expect(new Set(costs.filter((c) => c.size === MiB).map((c) => `/${c.pattern}/${c.flags}`))).toEqual(new Set(patterns.map((p) => p.shown)));
  }, 300_000);
});

describe('typed-data type names are read in one pass', () => {
  /** Sizes from 1 KiB doubling to 1 MiB: a super-linear cost shows, and stops the run, long before the last. */
  const SIZES = Array.from({ length: 11 }, (_, k) => 1024 << k);
  /** Typed data whose one struct has a field of type `type` (the field's type is what reachableTypes strips of `[]`). */
  const withFieldType = (type: string) => ({
    domain: { name: 'n' },
    types: { Mail: [{ name: 'a', type }] },
    primaryType: 'Mail',
    message: { a: 1 },
  });
  const digestOrRefusal = (input: unknown) => {
    try {
      return typedDataDigest(input);
    } catch (error) {
      return error;
    }
  };

  it.each<[string, (size: number) => string]>([
    ['`[]` repeated, then a character no suffix ends with', (n) => `${'[]'.repeat(n / 2)}!`],
    ['`[` repeated', (n) => '['.repeat(n)],
    ['`[1` repeated', (n) => '[1'.repeat(n / 2)],
    ['one `[` and a run of digits', (n) => `uint256[${'1'.repeat(n)}`],
    ['`[2]` repeated after a struct name, then a character', (n) => `Mail${'[2]'.repeat(n / 3)}x`],
  ])('%s: up to 1 MiB, each costs a linear scan of the type (and is refused, naming the field)', (_what, typeOf) => {
    const verdicts = costsBySize(SIZES, typeOf, (type) => type, (type) => digestOrRefusal(withFieldType(type)));
    expect(verdicts.filter((v) => !v.withinBound)).toEqual([]);
    expect(verdicts.at(-1)!.size).toBe(MiB);
    expect((digestOrRefusal(withFieldType(typeOf(MiB))) as Error).message).toMatch(/^types\.Mail\[0\]\.type: /);
  });
});
