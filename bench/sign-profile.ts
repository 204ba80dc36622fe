import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { breakdown, readOnlyProfile, type Breakdown, type Category } from './support/cpu-profile.js';
import { runLoad } from './support/load.js';
import { startFloor, startService, type SignTarget } from './support/sign-servers.js';

/**
 * Where a sign's time goes, in the service and in the floor: each server runs under `node --cpu-prof`
 * through the same fixed number of signs (32 connections), and the event loop's busy time is split into
 * the parts below and divided by the number of signs. It answers "what does the service do that the
 * floor does not, and what does each part cost"; the profiler adds its own overhead, so compare the rows
 * with each other, not with bench:sign's absolute figures.
 * Usage: npm run bench:sign-profile [-- signs]
 */
const signs = Number(process.argv[2] ?? 30_000);

const inFile = (...names: string[]) => (_fn: string, url: string) => names.some((n) => url.includes(n));
const named = (...names: string[]) => (fn: string) => names.includes(fn);

// Innermost match wins, so the order does not matter; each part names the code that does it.
const CATEGORIES: Category[] = [
  { name: 'signature (libsecp256k1)', matches: named('ecdsaSign') },
  {
    name: 'ABI encoding and keccak',
    matches: (fn, url) =>
      ['encodeAbiParameters', '/keccak/', 'domain/keccak', 'signing/abi-encoder', 'signable-digest'].some((n) => url.includes(n)) ||
      fn === 'toFunctionSelector',
  },
  { name: 'nonce (randomBytes)', matches: (fn, url) => fn === 'randomBytes' || url.includes('pooled-random') },
  { name: 'durable record and audit append (commit)', matches: inFile('sqlite.commit-queue', 'sqlite.signature-log', 'sqlite.audit-log', 'audit-chain') },
  { name: 'authentication (API key)', matches: inFile('authenticate.use-case', 'api-key') },
  { name: 'policy and signer lookup (cached)', matches: inFile('policy-cache', 'wallet-lookup', 'read-through-cache', 'sign-policy') },
  {
    name: 'argument checks and coercion',
    // Of json-shape.ts, the walk of the parsed `args` and `abi` (the text scan before the parse is not an argument check).
    matches: (fn, url) =>
      inFile('argument-coercion', 'domain/address', 'abi-function')(fn, url) ||
      (url.includes('json-shape') && ['checkJsonBounds', 'walk', 'count', 'place', 'fieldPath'].includes(fn)),
  },
  { name: 'metrics', matches: inFile('prom-client', 'metrics/') },
  { name: 'JSON body parse', matches: (fn, url) => fn === 'parseJsonBody' || fn === 'parseSignRequest' || (fn === 'parse' && url === '') },
  { name: 'HTTP (parse, route, reply)', matches: inFile('node:_http', 'node:net', 'node:internal/streams', 'node:internal/stream_base', 'observed-requests', 'pipeline', 'route-matcher', 'routes', 'sign-floor') },
];
const SERVING: Category = { name: 'serving', matches: inFile('pipeline', 'route-matcher', 'routes', 'sign-floor.server') };

async function profile(start: (nodeArgs: string[]) => Promise<SignTarget>): Promise<Breakdown> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-profile-'));
  try {
    const target = await start(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    try {
      const run = await runLoad({ ...target.request, connections: 32, amount: signs });
      if (run.non2xx + run.errors > 0) throw new Error(`${run.non2xx + run.errors} signs failed`);
    } finally {
      await target.stop(); // the profile is written as the process exits
    }
    return breakdown(readOnlyProfile(dir), CATEGORIES, SERVING);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const floor = await profile((nodeArgs) => startFloor('bare', nodeArgs));
const service = await profile(startService);
const perSign = (parts: Breakdown, name: string) => (parts.get(name) ?? 0) / signs;
const busy = (parts: Breakdown) => [...parts].filter(([k]) => k !== 'idle').reduce((a, [, t]) => a + t, 0) / signs;

console.log(`| part of a sign (${signs} signs, 32 connections, µs of event-loop time per sign) | floor | service | service − floor |`);
console.log('|---|---|---|---|');
for (const name of [...CATEGORIES.map((c) => c.name), 'gc', 'other']) {
  const [f, s] = [perSign(floor, name), perSign(service, name)];
  console.log(`| ${name} | ${f.toFixed(1)} | ${s.toFixed(1)} | ${(s - f).toFixed(1)} |`);
}
const [f, s] = [busy(floor), busy(service)];
console.log(`| **busy, all parts** | ${f.toFixed(1)} | ${s.toFixed(1)} | ${(s - f).toFixed(1)} |`);
console.log(`\nfloor / service busy time = ${(f / s).toFixed(2)}; idle per sign: floor ${perSign(floor, 'idle').toFixed(1)} µs, service ${perSign(service, 'idle').toFixed(1)} µs`);
