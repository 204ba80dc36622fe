import { DomainError, ErrorCode } from '../../../src/domain/errors.js';

/**
 * What the start-up check compares: each of the vault's tables with its columns (name to the column's
 * type, nullability and default as the database reports them), and the indexes and triggers by name
 * (to their definition, whitespace folded). Cheap to read (the catalogue, no table data), and what a
 * statement trips over first when a migration was skipped.
 */
export interface SchemaShape {
  readonly tables: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly indexes: Readonly<Record<string, string>>;
  readonly triggers: Readonly<Record<string, string>>;
}

/**
 * One way the database differs from this build's schema. `key` names it without the definitions
 * (`column api_keys.approver_address is missing`): the form LegacyLayouts' repairs are keyed by.
 */
export interface SchemaDifference {
  readonly key: string;
  readonly detail?: string;
}

/** Whitespace runs as one space: the catalogue keeps a definition's text as it was written. */
export const foldSpace = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * How `found` differs from `expected`: missing tables, columns, indexes and triggers, columns and
 * definitions that differ, and columns this build does not have in its own tables. Tables, indexes and
 * triggers the build does not name are not looked at (another tool's, or an operator's own index).
 */
export function schemaDifferences(expected: SchemaShape, found: SchemaShape): SchemaDifference[] {
  const differences: SchemaDifference[] = [];
  for (const [table, columns] of Object.entries(expected.tables)) {
    const present = found.tables[table];
    if (present === undefined) {
      differences.push({ key: `table ${table} is missing` });
      continue;
    }
    for (const [column, definition] of Object.entries(columns)) {
      const actual = present[column];
      if (actual === undefined) differences.push({ key: `column ${table}.${column} is missing`, detail: `this build's: ${definition}` });
      else if (actual !== definition) differences.push({ key: `column ${table}.${column} differs`, detail: `found ${actual}, this build's: ${definition}` });
    }
    for (const column of Object.keys(present)) {
      if (!(column in columns)) differences.push({ key: `column ${table}.${column} is not this build's`, detail: `found ${present[column]}` });
    }
  }
  for (const kind of ['index', 'trigger'] as const) {
    const wanted = kind === 'index' ? expected.indexes : expected.triggers;
    const present = kind === 'index' ? found.indexes : found.triggers;
    for (const [name, definition] of Object.entries(wanted)) {
      const actual = present[name];
      if (actual === undefined) differences.push({ key: `${kind} ${name} is missing`, detail: `this build's: ${definition}` });
      else if (actual !== definition) differences.push({ key: `${kind} ${name} differs`, detail: `found ${actual}, this build's: ${definition}` });
    }
  }
  return differences;
}

const describe = (d: SchemaDifference) => (d.detail === undefined ? d.key : `${d.key} (${d.detail})`);

/**
 * The refusal of a database whose tables are not this build's: named difference by difference, so the
 * operator (or whoever they ask) sees what is wrong without reading SQL, instead of each request failing
 * later with an opaque database error.
 */
export function schemaMismatch(where: string, differences: readonly SchemaDifference[]): DomainError {
  return new DomainError(
    ErrorCode.DATABASE_UNAVAILABLE,
    `${where} does not hold the schema this build expects: ${differences.map(describe).join('; ')}. ` +
      'If `wallet-vault migrate` of this build did not bring it, restore the backup taken before the last upgrade (docs/operations.md, "Upgrades"); nothing was changed',
  );
}
