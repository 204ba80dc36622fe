import { layoutsOf20261127, type LegacyLayout } from '../sql/legacy-layouts.js';
import type { Migration } from '../sql/migration-history.js';

/**
 * Which builds of main left what under PostgreSQL's version numbers before migrations were recorded by
 * name (in wallet_vault_migrations, or schema_migrations before a65c9b1, which migrate copies over):
 * every first-parent commit that changed postgres.migrations.ts was replayed (the fixtures of
 * test/fixtures/shipped-schemas/, scripts/shipped-schemas.mjs). All but the builds of 2026-11-27
 * (layoutsOf20261127) left exactly today's migrations 1 to N at version N; d0b46d0's governance (12)
 * was not yet re-runnable, but made the same tables. The repairs re-run statements of today's
 * migrations (`build`), never a copy of them.
 */
export function postgresLegacyLayouts(build: readonly Migration[]): readonly LegacyLayout[] {
  return layoutsOf20261127(build, (table, column) => `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${column}`);
}
