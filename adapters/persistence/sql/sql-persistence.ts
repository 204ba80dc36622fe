import type { JobLock } from '../../../src/ports/job-lock.port.js';
import type { Persistence } from '../../../src/ports/persistence.port.js';
import type { RequestRateStore } from '../../../src/ports/request-rate-store.port.js';
import { SqlApprovalStore } from './sql.approval-store.js';
import { SqlAuditLog } from './sql.audit-log.js';
import { SqlConsoleStore } from './sql.console-store.js';
import { SqlGovernanceStore } from './sql.governance-store.js';
import { SqlKeyQuarantine } from './sql.key-quarantine.js';
import { SqlOperatorStore } from './sql.operator-store.js';
import { SqlPolicyRepository } from './sql.policy-repository.js';
import { SqlReplayGuard } from './sql.replay-guard.js';
import { SqlSignCounter } from './sql.sign-counter.js';
import { SqlSignatureLog } from './sql.signature-log.js';
import { SqlWalletRepository } from './sql.wallet-repository.js';
import { SqlWebhookOutbox } from './sql.webhook-outbox.js';
import { SqlAuditStreamCursors } from './sql.audit-stream-cursors.js';
import type { SqlDatabase } from './sql-database.js';
import { SqlDatabaseDump, type DumpDialect } from './sql.database-dump.js';

/** What a dialect's factory adds to the ports written once: its name, its job lock, how it closes. */
export interface DialectParts {
  readonly description: string;
  readonly jobLock: JobLock;
  /** Nonces in the database (false: the application keeps them in memory). */
  readonly sharedNonces: boolean;
  /** Request counts every process on the database shares (PostgreSQL); absent: each process counts its own. */
  readonly requestRates?: RequestRateStore;
  /** How the dialect's tables are copied for a backup and written back by a restore. */
  readonly dump?: DumpDialect;
  close(): Promise<void>;
}

/** Every port of the Persistence over one opened SQL database. */
export function sqlPersistence(db: SqlDatabase, parts: DialectParts): Persistence {
  return {
    repository: new SqlWalletRepository(db),
    signatureLog: new SqlSignatureLog(db),
    auditLog: new SqlAuditLog(db),
    policies: new SqlPolicyRepository(db),
    keyQuarantine: new SqlKeyQuarantine(db),
    signCounter: new SqlSignCounter(db),
    approvals: new SqlApprovalStore(db),
    webhooks: new SqlWebhookOutbox(db),
    auditStreamCursors: new SqlAuditStreamCursors(db),
    governance: new SqlGovernanceStore(db),
    console: new SqlConsoleStore(db),
    operators: new SqlOperatorStore(db),
    replayGuard: parts.sharedNonces ? (now) => new SqlReplayGuard(db, now) : undefined,
    ...(parts.requestRates ? { requestRates: parts.requestRates } : {}),
    watchAudit: db.watchAudit,
    ...(parts.dump ? { databaseDump: new SqlDatabaseDump(db, parts.dump) } : {}),
    jobLock: parts.jobLock,
    description: parts.description,
    close: () => parts.close(),
  };
}
