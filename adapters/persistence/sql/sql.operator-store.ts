import { parseOperatorRoles, type OperatorRecord } from '../../../src/domain/operator.js';
import type { AuditEvent } from '../../../src/ports/audit-log.port.js';
import type { OperatorStore } from '../../../src/ports/operator-store.port.js';
import { AS_IS, INSTANT, Table } from './rows.js';
import { runAudited, type SqlDatabase } from './sql-database.js';

/** Roles and scope are comma-separated text (vault ids hold no comma); a null scope is every vault. */
const OPERATORS = new Table<OperatorRecord>('operators', {
  id: AS_IS,
  name: AS_IS,
  roles: (text: string) => parseOperatorRoles(text),
  vaults: (text: string) => (text === '' ? [] : text.split(',')),
  secretHash: AS_IS,
  created: INSTANT,
  revoked: INSTANT,
});

const stored = (operator: OperatorRecord): unknown[] =>
  OPERATORS.values({ ...operator, roles: operator.roles.join(',') as never, vaults: (operator.vaults === null ? null : operator.vaults.join(',')) as never });

export class SqlOperatorStore implements OperatorStore {
  constructor(private readonly db: SqlDatabase) {}

  insertOperator(operator: OperatorRecord, recorded: AuditEvent): Promise<boolean> {
    return runAudited(this.db, `${OPERATORS.insert} ON CONFLICT (name) DO NOTHING`, stored(operator), recorded);
  }

  findOperator(id: string): Promise<OperatorRecord | null> {
    return this.one('id', id);
  }

  findOperatorByName(name: string): Promise<OperatorRecord | null> {
    return this.one('name', name);
  }

  async listOperators(): Promise<OperatorRecord[]> {
    const rows = await this.db.all<object>(`${OPERATORS.select} ORDER BY name`);
    return rows.map((r) => OPERATORS.read(r, this.db.instant));
  }

  revokeOperator(id: string, at: Date, recorded: AuditEvent): Promise<boolean> {
    return runAudited(this.db, 'UPDATE operators SET revoked = $2 WHERE id = $1 AND revoked IS NULL', [id, at], recorded);
  }

  private async one(column: 'id' | 'name', value: string): Promise<OperatorRecord | null> {
    const rows = await this.db.all<object>(`${OPERATORS.select} WHERE ${column} = $1`, [value]);
    return rows.length === 0 ? null : OPERATORS.read(rows[0]!, this.db.instant);
  }
}
