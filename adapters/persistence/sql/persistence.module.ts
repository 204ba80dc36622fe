import { ContainerModule } from 'inversify';
import type { ApprovalStore } from '../../../src/ports/approval-store.port.js';
import type { AuditLog } from '../../../src/ports/audit-log.port.js';
import type { ConsoleStore } from '../../../src/ports/console-store.port.js';
import type { GovernanceStore } from '../../../src/ports/governance-store.port.js';
import type { JobLock } from '../../../src/ports/job-lock.port.js';
import type { KeyQuarantine } from '../../../src/ports/key-quarantine.port.js';
import type { Persistence } from '../../../src/ports/persistence.port.js';
import type { PolicyRepository } from '../../../src/ports/policy-repository.port.js';
import { PORT_TOKENS } from '../../../src/ports/port-tokens.js';
import type { SignCounter } from '../../../src/ports/sign-counter.port.js';
import type { SignatureLog } from '../../../src/ports/signature-log.port.js';
import type { WalletRepository } from '../../../src/ports/wallet-repository.port.js';
import type { WebhookOutbox } from '../../../src/ports/webhook-outbox.port.js';

/**
 * One binding per persistence port of an opened database, whichever dialect opened it (SQLite,
 * PostgreSQL, the in-memory twin); `deploymentId` is what its KeyQuarantine reported at start.
 */
export function persistenceModule(persistence: Persistence, deploymentId: string | null): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<WalletRepository>(PORT_TOKENS.WALLET_REPOSITORY).toConstantValue(persistence.repository);
    bind<SignatureLog>(PORT_TOKENS.SIGNATURE_LOG).toConstantValue(persistence.signatureLog);
    bind<AuditLog>(PORT_TOKENS.AUDIT_LOG).toConstantValue(persistence.auditLog);
    bind<PolicyRepository>(PORT_TOKENS.POLICY_REPOSITORY).toConstantValue(persistence.policies);
    bind<JobLock>(PORT_TOKENS.JOB_LOCK).toConstantValue(persistence.jobLock);
    bind<KeyQuarantine | undefined>(PORT_TOKENS.KEY_QUARANTINE).toConstantValue(persistence.keyQuarantine);
    bind<SignCounter | undefined>(PORT_TOKENS.SIGN_COUNTER).toConstantValue(persistence.signCounter);
    bind<ApprovalStore | undefined>(PORT_TOKENS.APPROVAL_STORE).toConstantValue(persistence.approvals);
    bind<string | null>(PORT_TOKENS.DEPLOYMENT_ID).toConstantValue(deploymentId);
    bind<WebhookOutbox | undefined>(PORT_TOKENS.WEBHOOK_OUTBOX).toConstantValue(persistence.webhooks);
    bind<GovernanceStore | undefined>(PORT_TOKENS.GOVERNANCE_STORE).toConstantValue(persistence.governance);
    bind<ConsoleStore | undefined>(PORT_TOKENS.CONSOLE_STORE).toConstantValue(persistence.console);
  });
}
