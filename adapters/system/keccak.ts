import { createRequire } from 'node:module';
import path from 'node:path';
import createKeccak from 'keccak';
import { useKeccak256 } from '../../src/domain/keccak.js';

/** The sponge of the `keccak` package's native addon (src/addon.cc): what its stream API wraps. */
interface KeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(length: number): Buffer;
}

/** keccak256's sponge: rate 1088 bits, capacity 512, Keccak's own padding (no SHA-3 suffix), 32 bytes out. */
const RATE = 1088;
const CAPACITY = 512;

/**
 * The addon, loaded the way the package's bindings.js loads it (node-gyp-build from the package's own
 * folder; the package does not export the class). null where it does not load: the package then
 * falls back to JavaScript, and so does nativeKeccak256 below, as it always did; `serve` refuses to start
 * on that, and so do the library entry points (adapters/native-bindings.ts asks `keccakIsNative`).
 * Here, in an adapter, rather than in the domain: loading a package's private native file is a runtime
 * concern, and the domain only hashes with the function it is given (src/domain/keccak.ts).
 */
function loadNativeState(): KeccakState | null {
  try {
    const fromHere = createRequire(import.meta.url);
    const packageJson = fromHere.resolve('keccak/package.json');
    const addon: unknown = createRequire(packageJson)('node-gyp-build')(path.dirname(packageJson));
    // bindings.js checks the same: a runtime without N-API may hand back an empty object.
    if (typeof addon !== 'function') return null;
    return new (addon as new () => KeccakState)();
  } catch {
    return null;
  }
}

/**
 * One sponge for the process, re-initialized on every call: keccak256 is synchronous, so no two calls
 * share it at once. The package's createKeccak builds a stream Transform per call, which cost more than
 * hashing the few hundred bytes of a sign.
 */
const state = loadNativeState();

/** Whether nativeKeccak256 hashes on the native addon rather than the package's JavaScript fallback. */
export const keccakIsNative = state !== null;

const asBuffer = (data: Uint8Array): Buffer =>
  Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/** Ethereum's keccak256 (not NIST SHA3-256) on the native sponge, or the package's JavaScript where it did not load. */
export function nativeKeccak256(data: Uint8Array): Buffer {
  if (state === null) return createKeccak('keccak256').update(asBuffer(data)).digest();
  state.initialize(RATE, CAPACITY);
  state.absorb(asBuffer(data));
  return state.squeeze(32);
}

/**
 * Gives the domain its keccak256. Every entry point calls it before anything hashes: createVault, each
 * module of lib/ (the package's `exports`) and the command line; test/lib/keccak-entry-points.test.ts holds
 * each to it. Calling it again changes nothing.
 */
export function installKeccak256(): void {
  useKeccak256(nativeKeccak256);
}
