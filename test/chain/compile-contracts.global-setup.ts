import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ARTIFACTS_DIR = path.join(here, '.artifacts');

/** Compiles the Solidity test contracts (in a child process, see compile-contracts.mjs) when they changed. */
export default function setup(): void {
  const sources = readdirSync(path.join(here, 'contracts')).map((f) => statSync(path.join(here, 'contracts', f)).mtimeMs);
  const artifact = path.join(ARTIFACTS_DIR, 'SignableTarget.json');
  if (existsSync(artifact) && statSync(artifact).mtimeMs > Math.max(...sources)) return;
  execFileSync(process.execPath, [path.join(here, 'compile-contracts.mjs'), ARTIFACTS_DIR], { stdio: 'inherit' });
}
