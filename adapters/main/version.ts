import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('../../', import.meta.url).href.replace(/dist\/$/, ''));

/** The git commit of the checkout the service runs from, else the package version. Read once at start. */
export function detectVersion(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: packageRoot,
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
    })
      .toString()
      .trim();
  } catch {
    // Not a checkout (an installed package): fall through to the package version.
  }
  try {
    const pkg = JSON.parse(readFileSync(new URL('package.json', `file://${packageRoot}/`), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
