import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf } from '../support/import-graph.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const clientDir = path.join(root, 'client');
/**
 * The one module of the vault the client shares: the EIP-712 messages approvers sign (decisions.md),
 * one definition for the vault that verifies and the client that signs. It must stay pure: no import.
 */
const SHARED = path.join(root, 'src/domain/signed-decisions.ts');
const SHARED_SPECIFIER = '../src/domain/signed-decisions.js';

/** Every module reachable from client/index.ts, with the specifiers each imports. */
function importGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const visit = (file: string) => {
    if (graph.has(file)) return;
    const source = readFileSync(file, 'utf8');
    const specifiers = importsOf(source).map((ref) => ref.specifier);
    graph.set(file, specifiers);
    for (const s of specifiers) if (s.startsWith('.')) visit(path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')));
  };
  visit(entry);
  return graph;
}

describe('wallet-vault/client loads in a browser bundle or a worker', () => {
  const graph = importGraph(path.join(clientDir, 'index.ts'));

  it('imports only its own files and the shared signed-decisions module (which imports nothing): no other server code, no package, no Node built-in', () => {
    expect(graph.size).toBeGreaterThanOrEqual(4);
    expect(graph.has(SHARED)).toBe(true);
    for (const [file, specifiers] of graph) {
      if (file === SHARED) {
        expect(specifiers, file).toEqual([]);
        continue;
      }
      expect(path.relative(clientDir, file).startsWith('..'), file).toBe(false);
      for (const s of specifiers) {
        if (s === SHARED_SPECIFIER) continue;
        // abitype's types only (SignedArgs): an `import type`, erased from the compiled client.
        if (s === 'abitype') {
          expect(readFileSync(file, 'utf8'), `${path.relative(root, file)} imports abitype for more than types`).toMatch(/^import type \{[^}]*\} from 'abitype';$/m);
          continue;
        }
        expect(s, `${path.relative(root, file)} imports ${s}`).toMatch(/^\.\/[a-z-]+\.js$/);
      }
    }
  });

  it('uses no Node-only global (process, Buffer, require, __dirname)', () => {
    for (const file of graph.keys()) {
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code, file).not.toMatch(/\b(process|Buffer|require|__dirname|__filename|global)\b/);
    }
  });

  it('compiles against the web platform alone (lib DOM, no @types/node) to the files `exports` names', async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'client-build-'));
    try {
      execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.client.json', '--outDir', out], { cwd: root, stdio: 'pipe' });
      const entry = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).exports['./client'] as { types: string; default: string };
      const built = (file: string) => path.join(out, path.relative('dist', file));
      expect(existsSync(built(entry.types)), entry.types).toBe(true);
      const loaded = (await import(pathToFileURL(built(entry.default)).href)) as Record<string, unknown>;
      expect(Object.keys(loaded).sort()).toEqual(['AdminClient', 'ApprovalPendingError', 'REQUIRED_ROLE', 'VAULT_ERROR_CODES', 'VAULT_ROLES', 'VaultClient', 'VaultError', 'createAuthSignature', 'decisionTypedData', 'isVaultErrorCode', 'signDecision', 'vaultErrorOf']);
      // Nothing of abitype in what runs: its types are gone from the compiled client.
      for (const file of execFileSync('find', [out, '-name', '*.js'], { encoding: 'utf8' }).trim().split('\n')) expect(readFileSync(file, 'utf8'), file).not.toMatch(/from ['"]abitype['"]|import\(['"]abitype/);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
