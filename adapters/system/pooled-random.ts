import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Cryptographically secure random bytes, drawn from a block that crypto.randomFillSync refills when it
 * runs out. One randomBytes(32) per sign (the nonce) cost a call into OpenSSL and a fresh buffer each
 * time; one refill of 4 KiB serves 128 nonces for the price of a few. The bytes are the same CSPRNG's
 * and each is handed out exactly once: the offset only moves forward, and a handed-out range is zeroed
 * so no copy of it stays behind. Node never forks a process's heap (cluster workers are new processes),
 * so no two processes share a block.
 */
export function pooledRandom(blockSize = 4096): (n: number) => Uint8Array {
  const block = Buffer.allocUnsafeSlow(blockSize);
  let offset = blockSize;
  return (n) => {
    if (n > blockSize) return randomBytes(n);
    if (offset + n > blockSize) {
      randomFillSync(block);
      offset = 0;
    }
    const out = Buffer.allocUnsafe(n);
    block.copy(out, 0, offset, offset + n);
    block.fill(0, offset, offset + n);
    offset += n;
    return out;
  };
}
