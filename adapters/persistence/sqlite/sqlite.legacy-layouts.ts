import { layoutsOf20261127, type LegacyLayout } from '../sql/legacy-layouts.js';
import { statementOf, type Migration } from '../sql/migration-history.js';

/**
 * Which builds of main left what under SQLite's version numbers (PRAGMA user_version) before migrations
 * were recorded by name: every first-parent commit that changed sqlite.migrations.ts was replayed (the
 * fixtures of test/fixtures/shipped-schemas/, scripts/shipped-schemas.mjs). All but these left exactly
 * today's migrations 1 to N at version N, so a number-only database is mapped to today's first N by
 * number; these are the exceptions, told apart by the schema (the number alone is ambiguous), and what
 * repairs each: the first migration as a5f209d shipped it, and those of 2026-11-27 (layoutsOf20261127).
 * The repairs re-run statements of today's migrations (`build`) where one makes what is missing.
 */
export function sqliteLegacyLayouts(build: readonly Migration[]): readonly LegacyLayout[] {
  const statement = (name: string, start: string) => statementOf(build, name, start);
  const recreateTrigger = (name: string) => `DROP TRIGGER IF EXISTS ${name}; ${statement('initial-schema', `CREATE TRIGGER ${name} `)}`;
  return [
    {
      builds: 'a5f209d, 2026-11-22, schema 1',
      left:
        'initial-schema as first shipped: wallet_counts without the generation the wallet pages read, triggers that do not move it, and an index ' +
        'wallets_by_key; 757989b changed that migration in place 40 minutes later, so a database already at 1 kept it',
      repairs: {
        // The index goes with it: the build that changed migration 1 took it out, no database made since has it.
        'column wallet_counts.generation is missing': 'ALTER TABLE wallet_counts ADD COLUMN generation INTEGER NOT NULL DEFAULT 0; DROP INDEX IF EXISTS wallets_by_key;',
        'trigger wallets_count_insert differs': recreateTrigger('wallets_count_insert'),
        'trigger wallets_count_delete differs': recreateTrigger('wallets_count_delete'),
        'trigger wallets_generation_update is missing': recreateTrigger('wallets_generation_update'),
      },
    },
    ...layoutsOf20261127(build, (table, column) => `ALTER TABLE ${table} ADD COLUMN ${column}`),
  ];
}
