import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import { statementOf, type Migration } from './migration-history.js';
import type { SchemaDifference } from './schema-shape.js';

/**
 * A schema that builds of main before named migrations left under a version number which today's list
 * gives other content: a migration edited after it shipped, or two branches' migrations renumbered at a
 * merge, so that a database already past that number never ran what now has it. Each dialect's table of
 * these (which build made what) is the map from a number-only history to today's migrations.
 */
export interface LegacyLayout {
  /** The first-parent commits of main whose databases have it, with the date and the schema version they left. */
  readonly builds: string;
  /** What those builds left, why, and how such a database is told apart from one of today's numbering. */
  readonly left: string;
  /**
   * Each difference from this build's schema it leaves, as schemaDifferences keys it, and the SQL that
   * repairs it. Only adds what is missing (nullable or defaulted columns, indexes, triggers) or rebuilds
   * an index or trigger: nothing is lost.
   */
  readonly repairs: Readonly<Record<string, string>>;
}

/** A repair to run: the difference it removes, the SQL, and the builds that left it (for the audit record). */
export interface PlannedRepair {
  readonly difference: string;
  readonly sql: string;
  readonly builds: string;
}

/**
 * The repairs for `differences` of a database adopted from a number-only history, in the order the
 * layouts list them (a column before the trigger that writes it). A difference no layout explains was
 * not left by any build of main: the database is refused, naming it, rather than changed.
 */
export function planRepairs(where: string, layouts: readonly LegacyLayout[], differences: readonly SchemaDifference[]): PlannedRepair[] {
  const found = new Set(differences.map((d) => d.key));
  const unexplained = differences.filter((d) => !layouts.some((l) => d.key in l.repairs));
  if (unexplained.length > 0) {
    throw new DomainError(
      ErrorCode.DATABASE_UNAVAILABLE,
      `${where} was migrated by a build before named migrations, and its schema differs from this build's in ways no earlier build of wallet-vault left: ` +
        `${unexplained.map((d) => (d.detail === undefined ? d.key : `${d.key} (${d.detail})`)).join('; ')}. ` +
        'Restore the backup taken before the last upgrade (docs/operations.md, "Upgrades"); this build changed nothing',
    );
  }
  const planned = new Map<string, PlannedRepair>();
  // A difference several layouts leave (a column two builds lacked) is repaired once, by the first.
  for (const l of layouts) {
    for (const [difference, sql] of Object.entries(l.repairs)) {
      if (found.has(difference) && !planned.has(difference)) planned.set(difference, { difference, sql, builds: l.builds });
    }
  }
  return [...planned.values()];
}

/** How a repair reads in `migrate`'s answer and in the audit record (`schema.migrated`'s `repaired`). */
export function describeRepair(r: PlannedRepair): string {
  const [, kind, name, state] = /^(\w+) (\S+) (.*)$/.exec(r.difference) ?? [];
  const done = state === 'is missing' ? 'added' : state === 'differs' ? 'rebuilt' : 'repaired';
  return `${kind} ${name} ${done} (as left by ${r.builds})`;
}

/**
 * What the builds of 2026-11-27 left in both databases (the two lists changed together):
 * - d0b46d0 and 575bb29 numbered governance 12; the merge 56ed77a made signed-votes 12 and governance 13,
 *   so a database already at 12 never ran signed-votes (nor did a later build: it ran 13, governance
 *   again, which changes nothing).
 * - 56ed77a's signed-votes lacked approvals.simulation, which ab78a7d added to it in place.
 * - 2e32c78's approvers-console made audit_log_by_subject whole; 1f897a0 made it partial in place.
 * `addColumn(table, column)` is how the dialect's signed-votes begins the statement adding that column.
 */
export function layoutsOf20261127(build: readonly Migration[], addColumn: (table: string, column: string) => string): LegacyLayout[] {
  const statement = (name: string, start: string) => statementOf(build, name, start);
  const simulation = { 'column approvals.simulation is missing': statement('signed-votes', addColumn('approvals', 'simulation')) };
  return [
    {
      builds: 'd0b46d0 and 575bb29, 2026-11-27, schema 12',
      left:
        'governance as migration 12, signed-votes never run. Told apart from a 12 of today by vault_governance present and ' +
        'api_keys.approver_address absent; also at 13 or 14 once a later build migrated it',
      repairs: {
        'column api_keys.approver_address is missing': statement('signed-votes', addColumn('api_keys', 'approver_address')),
        'column approval_votes.signature is missing': statement('signed-votes', addColumn('approval_votes', 'signature')),
        ...simulation,
      },
    },
    { builds: '56ed77a, 2026-11-27, schema 13', left: 'signed-votes without approvals.simulation', repairs: simulation },
    {
      builds: '2e32c78, 2026-11-27, schema 14',
      left: 'approvers-console with the whole index audit_log_by_subject (signing records included)',
      repairs: {
        'index audit_log_by_subject differs': `DROP INDEX audit_log_by_subject; ${statement('approvers-console', 'CREATE INDEX IF NOT EXISTS audit_log_by_subject')}`,
      },
    },
  ];
}
