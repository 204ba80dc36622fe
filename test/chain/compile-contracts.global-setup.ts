import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
export const ARTIFACTS_DIR = path.join(here, '.artifacts');

const newestSource = (dir: string): number =>
  Math.max(
    ...readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.sol'))
      .map((f) => statSync(path.join(dir, f)).mtimeMs),
  );

/**
 * Compiles the shipped contracts (contracts/) and the test contracts built on them, when either changed,
 * with the script the package build uses (scripts/compile-contracts.mjs, in a process of its own).
 */
export default function setup(): void {
  const artifact = path.join(ARTIFACTS_DIR, 'SignableTarget.json');
  const newest = Math.max(newestSource(path.join(here, 'contracts')), newestSource(path.join(repoRoot, 'contracts')));
  if (existsSync(artifact) && statSync(artifact).mtimeMs > newest) return;
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts/compile-contracts.mjs'), ARTIFACTS_DIR, path.join(here, 'contracts')], { stdio: 'inherit' });
}
