import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION as POSTGRES_SCHEMA_VERSION } from '../../adapters/persistence/postgres/postgres.migration-steps.js';
import { SCHEMA_VERSION } from '../../adapters/persistence/sqlite/sqlite.migration-steps.js';
import { withoutFencedCode } from '../support/markdown.js';

/**
 * Issue 53, stale numbers: the docs once said the schema goes to 11 when it had gone further. They now
 * say N for the build's last migration; a figure given as the current schema version must be the
 * migrations' count, and no figure may be beyond it.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const docs = ['README.md', ...readdirSync(path.join(repoRoot, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** Phrases that state the build's current schema version (what `migrate` prints, what a refusal names). */
const CURRENT = [/migrated from\s+schema\s+version\s+\d+\s+to\s+(\d+)/g, /is at schema\s+version\s+(\d+)/g, /newer than this build knows \((\d+)\)/g, /"from": \d+, "to": (\d+)/g];

function figures(text: string, patterns: readonly RegExp[]): number[] {
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => Number(m[1])));
}

describe('schema version figures in the docs', () => {
  it('SQLite and PostgreSQL have as many migrations', () => {
    expect(POSTGRES_SCHEMA_VERSION).toBe(SCHEMA_VERSION);
  });

  it('a figure given as the current schema version is the number of migrations', () => {
    const wrong = docs.flatMap((file) => figures(readFileSync(path.join(repoRoot, file), 'utf8'), CURRENT).filter((n) => n !== SCHEMA_VERSION).map((n) => `${file}: ${n}`));
    expect(wrong).toEqual([]);
  });

  it('no schema version named is beyond the last migration', () => {
    const beyond = docs.flatMap((file) =>
      figures(withoutFencedCode(readFileSync(path.join(repoRoot, file), 'utf8')), [/schema(?:\s+version)?\s+(\d+)/gi, /migration\s+(\d+)/gi])
        .filter((n) => n > SCHEMA_VERSION)
        .map((n) => `${file}: ${n}`),
    );
    expect(beyond).toEqual([]);
  });

  it('reads the figures it checks', () => {
    expect(figures('`… vault.db migrated from schema\nversion 0 to 11`, or `… is at schema version 11: nothing to do`', CURRENT)).toEqual([11, 11]);
    expect(figures('migrated from schema version 0 to N', CURRENT)).toEqual([]);
  });
});
