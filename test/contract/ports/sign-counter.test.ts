import { SqlSignCounter } from '../../../adapters/persistence/sql/sql.sign-counter.js';
import { describeEachDialect, nothingToClean } from '../../support/sql-dialects.js';
import { describeSignCounterContract, InMemorySignCounter } from 'wallet-vault/testing';

describeEachDialect((d) =>
  describeSignCounterContract(`${d.name} (${d.interleavedIs})`, async () => {
    const opened = await d.open();
    return { counters: [new SqlSignCounter(opened.sql), new SqlSignCounter(await opened.interleaved())], cleanup: opened.cleanup };
  }),
);

describeSignCounterContract('in-memory (test twin)', async () => {
  const counter = new InMemorySignCounter();
  return { counters: [counter, counter], cleanup: nothingToClean };
});
