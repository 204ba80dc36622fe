import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SIGNER_ABI } from '../support/sign-fixtures.js';

const dist = pathToFileURL(path.resolve(import.meta.dirname, '../../dist/src')).href;

/**
 * Run in a child process with --expose-gc, on the compiled package: signs' worth of ABI items go through
 * what a sign does with one (parse, check the arguments, encode the message, remember it) until the
 * cache is at its bound. The heap taken is then compared with the cache's own estimate.
 */
const FILL = `
// The domain hashes with the keccak256 it is given, as every entry point of the package gives it.
(await import('${dist}/../adapters/system/keccak.js')).installKeccak256();
const { AbiFunctionCache } = await import('${dist}/application/signing/abi-function-cache.js');
const { coerceArguments } = await import('${dist}/domain/signing/argument-coercion.js');
const { encodeMessage } = await import('${dist}/domain/signing/signable-digest.js');
const { shapes, bound } = JSON.parse(process.env.FILL);
const item = (i) => {
  const { abi, args } = shapes[i % shapes.length];
  // A request's JSON text: each item its own, as clients' differ (one name per item).
  return { text: JSON.stringify({ ...abi, name: abi.name + i }), args };
};
function sign(cache, i) {
  const { text, args } = item(i);
  const parsed = cache.parse(JSON.parse(text));
  encodeMessage(parsed.fn, coerceArguments(args, parsed.fn.argParams));
  cache.remember(parsed.key, parsed.fn);
}
// The compiled code of this path is the process's, not the cache's: warmed up before measuring.
const warm = new AbiFunctionCache(bound);
for (let i = 0; i < 2000; i++) sign(warm, 1e7 + i);
globalThis.gc(); globalThis.gc();
const before = process.memoryUsage().heapUsed;
const cache = new AbiFunctionCache(bound);
for (let i = 0; ; i++) {
  const size = cache.size;
  sign(cache, i);
  if (cache.size <= size) break; // full: the next item evicted one
}
globalThis.gc(); globalThis.gc();
const heap = process.memoryUsage().heapUsed - before;
console.log(JSON.stringify({ entries: cache.size, estimate: cache.byteSize, heap }));
`;

const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const SIGNATURE_PARAM = SIGNER_ABI.inputs[1]!;
type Shape = { abi: { type: string; name: string; inputs: object[] }; args: unknown[] };
const fn = (name: string, inputs: object[], args: unknown[]): Shape => ({ abi: { type: 'function', name, inputs: [...inputs, SIGNATURE_PARAM] }, args });

/** What clients sign: the fixture's one-argument function and its kin (transfers, orders, batches). */
const REALISTIC: Shape[] = [
  { abi: SIGNER_ABI, args: ['1'] },
  fn('transferWithSig', [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], [ADDRESS, '1000']),
  fn(
    'fillOrder',
    [{ name: 'order', type: 'tuple', components: ['maker', 'tokenIn', 'tokenOut'].map((name) => ({ name, type: 'address' })).concat([{ name: 'amountIn', type: 'uint256' }, { name: 'deadline', type: 'uint64' }]) }, { name: 'path', type: 'bytes' }],
    [[ADDRESS, ADDRESS, ADDRESS, '5', '1700000000'], '0x1234'],
  ),
  fn('mintBatch', [{ name: 'ids', type: 'uint256[]' }, { name: 'amounts', type: 'uint256[]' }, { name: 'memo', type: 'string' }], [['1', '2'], ['3', '4'], 'memo']),
];

/** What costs the most per character sent: arrays of arrays, nested tuples, names past Latin-1. */
const COSTLY: Shape[] = [
  fn('grid', Array.from({ length: 16 }, (_, i) => ({ name: `g${i}`, type: 'uint8[][2]' })), Array.from({ length: 16 }, () => [['1'], ['2']])),
  fn('deep', [[0, 1, 2, 3, 4, 5].reduce<object>((inner, d) => ({ name: `t${d}`, type: 'tuple', components: [inner, { name: 'a', type: 'address' }] }), { name: 'leaf', type: 'bool' })], [[0, 1, 2, 3, 4, 5].reduce<unknown>((v) => [v, ADDRESS], true)]),
  fn('names', [{ name: 'сумма'.repeat(20), type: 'uint256' }, { name: 'получатель'.repeat(10), type: 'address' }], ['1', ADDRESS]),
];

function fill(shapes: Shape[], bound: number): Promise<{ entries: number; estimate: number; heap: number }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', '--input-type=module', '-e', FILL], { env: { ...process.env, FILL: JSON.stringify({ shapes, bound }) } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as { entries: number; estimate: number; heap: number }),
    );
  });
}

describe("the parsed-ABI cache's byte estimate is the heap it takes", () => {
  // At the default bound: hundreds to thousands of entries, so what else moves on the heap is small beside them.
  it.each([
    { label: 'items as clients sign them', shapes: REALISTIC },
    { label: 'the items costing the most heap per character sent', shapes: COSTLY },
  ])('$label, filled to 8 MiB: within a fifth of the heap', async ({ shapes }) => {
    const { entries, estimate, heap } = await fill(shapes, 8 * 1024 * 1024);
    expect(entries).toBeGreaterThan(300);
    expect(estimate).toBeGreaterThan(0.95 * 8 * 1024 * 1024);
    expect(Math.abs(estimate - heap) / heap, `estimate ${estimate} for a heap of ${heap} (${entries} entries)`).toBeLessThanOrEqual(0.2);
  });
});
