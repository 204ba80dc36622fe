/** Ethereum's keccak256 (not NIST SHA3-256): 32 bytes out. */
export type Keccak256 = (data: Uint8Array) => Buffer;

/**
 * The hash the domain is given. The core loads no native package (test/unit/architecture-boundaries.test.ts):
 * the composition gives it keccak256 (adapters/system/keccak.ts, the native sponge) before anything
 * hashes. A module-level slot rather than a parameter of every use case: addresses (EIP-55), selectors
 * and digests hash deep inside pure functions, and the sign path pays one null check, not a rewiring.
 */
let given: Keccak256 | null = null;

/** Installs the hash (adapters/system/keccak.ts's installKeccak256 calls it). */
export function useKeccak256(hash: Keccak256): void {
  given = hash;
}

/**
 * keccak256 with the hash given. Without one it throws rather than hash with nothing: an address checksum
 * or a digest computed wrong would be signed, and a missing composition step must show at once.
 */
export function keccak256(data: Uint8Array): Buffer {
  if (given === null) {
    throw new Error('keccak256 was not given to the domain: call installKeccak256() (adapters/system/keccak.ts) before anything hashes');
  }
  return given(data);
}
