import { it } from 'vitest';
import { SqlReplayGuard } from '../../../adapters/persistence/sql/sql.replay-guard.js';
import { describeEachDialect } from '../../support/sql-dialects.js';
import { expectSharedReplayGuard } from 'wallet-vault/testing';

// The in-memory guard (adapters/replay) is one process's by design: only the databases' are shared.
describeEachDialect((d) =>
  it(`${d.name}: refuses a replayed auth nonce from another process on the database, and lets an expired one go`, async () => {
    const opened = await d.open();
    try {
      const connections = [opened.sql, await opened.other()];
      await expectSharedReplayGuard({
        guard: (which, now, sweepEveryMs) => new SqlReplayGuard(connections[which]!, now, sweepEveryMs),
        nonces: async () => (await opened.sql.all<{ nonce: string }>('SELECT nonce FROM auth_nonces ORDER BY nonce')).map((r) => r.nonce),
        expireAll: async () => void (await opened.sql.run('UPDATE auth_nonces SET expires = $1', [new Date(Date.now() - 1000)])),
      });
    } finally {
      await opened.cleanup();
    }
  }),
);
