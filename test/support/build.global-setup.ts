import { execFileSync } from 'node:child_process';

/**
 * Tests that run the real `wallet-vault` command, import the package by name or pack it need the
 * compiled output, all of it (`npm run build`: the server and library, the client, openapi.json); a few seconds.
 */
export default function setup(): void {
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}
