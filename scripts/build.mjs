#!/usr/bin/env node
// `npm run build`: compiles everything the package ships into a fresh folder beside dist/ and then moves
// it in file by file, each a rename over the old one, so a CLI or server running from this checkout
// meanwhile never finds dist/ or any of its modules missing, nor a file half written (issue 39, item 8).
// Building from empty also means a module renamed or removed in the source cannot linger in dist/ and be
// packed with the next release. dist/contracts is carried over: compile-contracts.mjs --if-changed
// recompiles it only when the Solidity changed (solc-js takes seconds).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
// One folder per build: two builds at once (a test run and `npm start`) never write into each other's.
const next = path.join(root, `dist.next-${process.pid}`);
const node = (...args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

rmSync(next, { recursive: true, force: true });
try {
  if (existsSync(path.join(dist, 'contracts'))) cpSync(path.join(dist, 'contracts'), path.join(next, 'contracts'), { recursive: true, preserveTimestamps: true });
  node(tsc, '-p', 'tsconfig.build.json', '--outDir', next);
  // The client's role table, from the route table (it imports nothing of the server): before the client compiles.
  node(path.join(next, 'adapters', 'http', 'client-roles-file.js'), path.join(root, 'client', 'operation-roles.ts'));
  // Its lists of signing kinds and chains, from the domain's registry and chain table, likewise.
  node(path.join(next, 'adapters', 'http', 'client-lists-file.js'), path.join(root, 'client'));
  node(tsc, '-p', 'tsconfig.client.json', '--outDir', next);
  node(path.join(root, 'scripts', 'copy-api-docs-assets.mjs'), path.join(next, 'api-docs'));
  node(path.join(root, 'scripts', 'copy-console-page.mjs'), path.join(next, 'console-page'));
  node(path.join(next, 'adapters', 'http', 'openapi', 'write-openapi-file.js'), path.join(root, 'openapi.json'));
  node(path.join(root, 'scripts', 'compile-contracts.mjs'), '--if-changed', path.join(next, 'contracts'));
} catch (error) {
  rmSync(next, { recursive: true, force: true });
  throw error;
}
moveInto(next, dist);
rmSync(next, { recursive: true, force: true });

/**
 * Moves every file of `from` over its namesake in `to`, one rename each (atomic: a reader finds the old
 * file or the new one, never none), then removes what the new build no longer has. Renaming the whole
 * folder would leave a moment with no dist/ at all, which a command starting then met as a missing module.
 */
function moveInto(from, to) {
  mkdirSync(to, { recursive: true });
  const kept = new Set();
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    kept.add(entry.name);
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      if (existsSync(target) && !statSync(target).isDirectory()) rmSync(target, { force: true });
      moveInto(source, target);
    } else {
      if (existsSync(target) && statSync(target).isDirectory()) rmSync(target, { recursive: true, force: true });
      renameSync(source, target);
    }
  }
  for (const entry of readdirSync(to)) if (!kept.has(entry)) rmSync(path.join(to, entry), { recursive: true, force: true });
}
