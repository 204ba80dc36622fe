import { describe, expect, it } from 'vitest';
import { startRefusedAuthFlush } from '../../adapters/main/refused-auth-flush.js';

describe('the periodic flush of the refused-authentication summary', () => {
  it('logs each source whose record was lost (escaped source, count, error), once per source, and nothing when all were written', async () => {
    const logged: [object, string][] = [];
    const logger = { info() {}, warn() {}, error: (fields: object, message: string) => void logged.push([fields, message]) };
    const results = [
      { written: 3, lost: [] },
      { written: 1, lost: [{ source: '203.0.113.5', count: 2, error: new Error('database unavailable') }, { source: 'x\u0000y', count: 1, error: 'gone' }] },
    ];
    let flushes = 0;
    const first = startRefusedAuthFlush({ flush: async () => results[flushes++]! }, 3_600_000, logger);
    await first.stop();
    expect(logged).toEqual([]);
    const second = startRefusedAuthFlush({ flush: async () => results[flushes++]! }, 3_600_000, logger);
    await second.stop();
    const message = 'could not record the summary of refused authentications of one source';
    expect(logged).toEqual([
      [{ source: '203.0.113.5', count: 2, err: 'database unavailable' }, message],
      [{ source: 'x\\u{0000}y', count: 1, err: 'gone' }, message],
    ]);
  });
});
