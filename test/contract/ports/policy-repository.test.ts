import { SqlPolicyRepository } from '../../../adapters/persistence/sql/sql.policy-repository.js';
import { describeEachDialect, nothingToClean } from '../../support/sql-dialects.js';
import { describePolicyRepositoryContract, InMemoryPolicyRepository } from 'wallet-vault/testing';

describeEachDialect((d) =>
  describePolicyRepositoryContract(d.name, async () => {
    const { sql, cleanup } = await d.open();
    return { policies: new SqlPolicyRepository(sql), cleanup };
  }),
);

describePolicyRepositoryContract('in-memory (test twin)', async () => ({ policies: new InMemoryPolicyRepository(), cleanup: nothingToClean }));
