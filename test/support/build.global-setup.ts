import { execFileSync } from 'node:child_process';

/** Tests that run the real `wallet-vault` command need the compiled output; tsc takes about a second. */
export default function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
