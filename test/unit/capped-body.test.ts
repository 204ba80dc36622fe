import { describe, expect, it } from 'vitest';
import { readAtMost } from '../../adapters/chain/capped-body.js';

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** A body of `total` bytes made one chunk at a time as the reader pulls, recording how much was pulled and whether it was cancelled. */
function lazyBody(total: number) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const size = Math.min(CHUNK, total - seen.pulled);
        if (size <= 0) return controller.close();
        seen.pulled += size;
        controller.enqueue(new Uint8Array(size).fill(0x61));
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, seen };
}

describe('readAtMost, how the relay reads a chain RPC answer', () => {
  it('stops at the cap: of a 10 MiB body no more than the cap and one chunk is ever taken, and the body is cancelled', async () => {
    const { body, seen } = lazyBody(10 * MiB);
    expect(await readAtMost(body, MiB)).toBeNull();
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThanOrEqual(MiB + CHUNK);
  });

  it('returns a body at or under the cap whole', async () => {
    const { body, seen } = lazyBody(MiB);
    const bytes = await readAtMost(body, MiB);
    expect(bytes?.byteLength).toBe(MiB);
    expect(seen.cancelled).toBe(false);
    expect(await readAtMost(null, 10)).toEqual(new Uint8Array(0));
    expect(await readAtMost(lazyBody(1).body, 0)).toBeNull();
  });
});
