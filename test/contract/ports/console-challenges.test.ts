import { expect, it } from 'vitest';
import { SqlConsoleStore } from '../../../adapters/persistence/sql/sql.console-store.js';
import { challengeRefusal } from '../../../src/application/console/sign-in-challenges.js';
import type { ChallengePurpose } from '../../../src/ports/console-store.port.js';
import { describeEachDialect } from '../../support/sql-dialects.js';

/*
 * The console's challenges are counted and stored in one transaction, one at a time on every instance:
 * two instances (two pools on one PostgreSQL database, the one SQLite connection twice, as
 * sql-dialects.ts' `interleaved` says) asking for challenges at once store no more than a client's bound,
 * and no more than the bound of all.
 */
const NOW = new Date('2026-01-01T00:00:00Z');
const bounds = { perClient: 3, outstanding: 10 };

describeEachDialect((d) =>
  it(`${d.name}: at most the client's bound and the bound of all, asked from two instances at once; expired ones are not counted`, async () => {
    const opened = await d.open();
    try {
      const stores = [new SqlConsoleStore(opened.sql), new SqlConsoleStore(await opened.interleaved())];
      let n = 0;
      const ask = (client: string, expiresInMs = 60_000, purpose: ChallengePurpose = 'session') =>
        stores[n % 2]!.addChallenge({ challenge: `c${n++}`, purpose, subject: null, client, expires: new Date(NOW.getTime() + expiresInMs) }, NOW, (o) => challengeRefusal(o, bounds, NOW));
      const refused = (answers: readonly unknown[]) => answers.filter((a) => a !== null).length;
      // Twenty at once from one client: three stored.
      expect(refused(await Promise.all(Array.from({ length: 20 }, () => ask('203.0.113.1'))))).toBe(17);
      expect(await stores[1]!.challengesOf('203.0.113.1', NOW)).toEqual({ count: 3, firstExpires: new Date(NOW.getTime() + 60_000) });
      // Twenty at once from twenty clients, each holding none: seven more fill the ten.
      expect(refused(await Promise.all(Array.from({ length: 20 }, (_, i) => ask(`198.51.100.${i}`))))).toBe(13);
      const count = async () => Number((await opened.sql.all<{ n: unknown }>('SELECT count(*) AS n FROM console_challenges'))[0]?.n);
      expect(await count()).toBe(10);
      // Once they expire they count for nothing, and are dropped.
      const later = new Date(NOW.getTime() + 60_000);
      expect(await stores[0]!.challengesOf('203.0.113.1', later)).toEqual({ count: 0, firstExpires: null });
      const again = await stores[0]!.addChallenge({ challenge: 'fresh', purpose: 'session', subject: null, client: '203.0.113.1', expires: new Date(later.getTime() + 60_000) }, later, (o) => challengeRefusal(o, bounds, later));
      expect(again).toBeNull();
      expect(await count()).toBe(1);
    } finally {
      await opened.cleanup();
    }
  }),
);
