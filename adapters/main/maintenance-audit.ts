import type { Container } from 'inversify';
import { audit } from '../../src/application/audit/audit-actor.js';
import type { AuditDetails, AuditLog } from '../../src/ports/audit-log.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import { TOKENS } from './tokens.js';

/**
 * The audit records of maintenance that changes no row of a use case's (docs/api.md, "Audit trail"):
 * a migration, a master-key rotation. Appended by whoever did it, once it is done, to the one chain the
 * vault's other records are in.
 */
export function recordMaintenance(container: Container, action: 'schema.migrated' | 'master-key.rotated' | 'master-key.split' | 'master-key.resplit' | 'backup.created' | 'backup.restored', actor: string, details: AuditDetails): Promise<void> {
  const clock = container.get<Clock>(TOKENS.CLOCK);
  return audit(container.get<AuditLog>(TOKENS.AUDIT_LOG), action, clock.now(), actor, null, null, details);
}

/**
 * Whether a migration is recorded: one that changed an existing database (applied migrations, or repaired
 * what an earlier build left out). Not one that changed nothing, nor one that created the database from
 * nothing: there is no trail yet to continue, and the new trail starts at seq 1 anyway.
 */
export const migrationRecorded = (m: SchemaChange): boolean => m.from !== 0 && (m.from !== m.to || (m.repaired?.length ?? 0) > 0);

/** A migration as `wallet-vault migrate` and `serve` report it: the versions, and the repairs of an earlier build's schema. */
export interface SchemaChange {
  readonly from: number;
  readonly to: number;
  readonly repaired?: readonly string[];
}

/**
 * Records a migration (`schema.migrated`, with `repaired`: what was repaired, one line each, when
 * anything was) when migrationRecorded; after it, as the audit table may be one it created.
 */
export async function recordSchemaMigration(container: Container, actor: string, m: SchemaChange): Promise<boolean> {
  if (!migrationRecorded(m)) return false;
  await recordMaintenance(container, 'schema.migrated', actor, { from: m.from, to: m.to, ...(m.repaired?.length ? { repaired: m.repaired.join('; ') } : {}) });
  return true;
}
