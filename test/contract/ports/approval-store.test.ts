import { randomUUID } from 'node:crypto';
import { SqlApprovalStore } from '../../../adapters/persistence/sql/sql.approval-store.js';
import { SqlAuditLog } from '../../../adapters/persistence/sql/sql.audit-log.js';
import { SqlSignatureLog } from '../../../adapters/persistence/sql/sql.signature-log.js';
import { SqlWalletRepository } from '../../../adapters/persistence/sql/sql.wallet-repository.js';
import { describeEachDialect, nothingToClean } from '../../support/sql-dialects.js';
import { aVault } from '../../support/wallet-mother.js';
import { describeApprovalStoreContract, InMemoryApprovalStore, InMemoryAuditLog, InMemorySignatureLog, InMemoryWalletRepository } from 'wallet-vault/testing';

describeEachDialect((d) =>
  describeApprovalStoreContract(`${d.name} (${d.interleavedIs})`, async () => {
    const opened = await d.open();
    const repo = new SqlWalletRepository(opened.sql);
    return {
      stores: [new SqlApprovalStore(opened.sql), new SqlApprovalStore(await opened.interleaved())],
      apiKeys: repo,
      signatureLog: new SqlSignatureLog(opened.sql),
      auditLog: new SqlAuditLog(opened.sql),
      newVault: async () => {
        const vault = aVault();
        await repo.ensureAccount(vault.accountId, new Date());
        await repo.insertVault(vault);
        return vault.id;
      },
      cleanup: opened.cleanup,
    };
  }),
);

describeApprovalStoreContract('in-memory (test twin)', async () => {
  const auditLog = new InMemoryAuditLog();
  const signatureLog = new InMemorySignatureLog(auditLog);
  const apiKeys = new InMemoryWalletRepository(auditLog);
  const store = new InMemoryApprovalStore(auditLog, signatureLog, apiKeys);
  return { stores: [store, store], signatureLog, auditLog, apiKeys, newVault: async () => randomUUID(), cleanup: nothingToClean };
});
