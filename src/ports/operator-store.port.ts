import type { OperatorRecord } from '../domain/operator.js';
import type { AuditEvent } from './audit-log.port.js';

/** Named operators and their credentials' hashes (docs/operators.md). */
export interface OperatorStore {
  /** Writes the operator and `recorded` in one transaction; false (nothing written) when its name is taken. */
  insertOperator(operator: OperatorRecord, recorded: AuditEvent): Promise<boolean>;
  findOperator(id: string): Promise<OperatorRecord | null>;
  findOperatorByName(name: string): Promise<OperatorRecord | null>;
  /** Every operator, revoked ones too, by name. */
  listOperators(): Promise<OperatorRecord[]>;
  /** Revokes an unrevoked operator and writes `recorded` with it; false when there was none to revoke. */
  revokeOperator(id: string, at: Date, recorded: AuditEvent): Promise<boolean>;
}
