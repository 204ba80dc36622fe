import { describeEachDialect, nothingToClean } from '../../support/sql-dialects.js';
import { describeJobLockContract, InMemoryJobLock } from 'wallet-vault/testing';

describeEachDialect((d) =>
  describeJobLockContract(`${d.name} (${d.jobLockIs})`, async () => {
    const { jobLock, cleanup } = await d.open();
    return { lock: jobLock, cleanup };
  }),
);

describeJobLockContract('in-memory (test twin)', async () => ({ lock: new InMemoryJobLock(), cleanup: nothingToClean }));
