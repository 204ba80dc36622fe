import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_VARIABLES } from '../../adapters/main/config.js';
import { tableAfter } from '../support/markdown.js';

/**
 * Issue 53: the configuration tables (README.md's summary, docs/configuration.md's full one) name
 * exactly the variables the code declares (adapters/main/config.ts and each key store's module.ts):
 * none left out, none that the code does not read.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

/** The backticked names in the first column of the table that follows `marker` (a row may name several). */
function tableVariables(markdown: string, marker: string): string[] {
  const names = tableAfter(markdown, marker).flatMap((row) => [...row[0]!.matchAll(/`([A-Z][A-Z0-9_]*(?:<CHAIN>)?)`/g)].map((m) => m[1]!));
  return [...new Set(names)].sort();
}

/**
 * Variables the code reads from `process.env` outside the configuration, which are not settings: the
 * slot the primary process hands each worker, and a test's crash hook.
 */
const NOT_SETTINGS = new Set(['VAULT_WORKER_SLOT', 'VAULT_TEST_ROTATE_KILL']);

function filesUnder(folder: string): string[] {
  return readdirSync(path.join(repoRoot, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(folder, entry.name);
    return entry.isDirectory() ? filesUnder(relative) : /\.(ts|mjs|js)$/.test(entry.name) ? [relative] : [];
  });
}

const declared = [...CONFIGURATION_VARIABLES].sort();

describe('the configuration tables', () => {
  it('the code declares the variables it reads', () => {
    expect(declared).toContain('VAULT_GOVERNANCE_PINS');
    expect(declared).toContain('VAULT_MASTER_KEY'); // a key store's own
    expect(declared).toContain('VAULT_RPC_URL_<CHAIN>');
    // Read from process.env anywhere else: a setting the schema does not validate would be one the tables cannot hold.
    const readDirectly = new Set<string>();
    for (const file of [...filesUnder('src'), ...filesUnder('adapters'), ...filesUnder('lib'), ...filesUnder('bin')]) {
      const text = read(file);
      for (const m of text.matchAll(/process\.env(?:\.|\[['"])(VAULT_[A-Z0-9_]+)/g)) readDirectly.add(m[1]!);
      for (const m of text.matchAll(/const [A-Z_]+_ENV = '(VAULT_[A-Z0-9_]+)'/g)) readDirectly.add(m[1]!);
    }
    expect([...readDirectly].filter((name) => !declared.includes(name) && !NOT_SETTINGS.has(name))).toEqual([]);
  });

  it("README.md's table names every variable the code declares, and no other", () => {
    expect(tableVariables(read('README.md'), '## Configuration')).toEqual(declared);
  });

  it("docs/configuration.md's table names every variable the code declares, and no other", () => {
    expect(tableVariables(read('docs/configuration.md'), '| variable | default | meaning |')).toEqual(declared);
  });

  it('reads a table as the tests above do', () => {
    const table = '## T\n\n| variable | default | meaning |\n|---|---|---|\n| `A_B`, `C` | 1 | x |\n| `VAULT_RPC_URL_<CHAIN>` | | y |\n\nafter\n| `D` | | |';
    expect(tableVariables(table, '## T')).toEqual(['A_B', 'C', 'VAULT_RPC_URL_<CHAIN>']);
  });
});
