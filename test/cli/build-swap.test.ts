import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'bin/wallet-vault.js');

describe('npm run build while the CLI runs from the same checkout', () => {
  it('the CLI never finds dist/ or a module missing: the build writes beside it and moves it in file by file', async () => {
    const build = spawn('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    build.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const built = new Promise<number | null>((resolve) => build.on('exit', resolve));
    let running = true;
    void built.then(() => (running = false));
    const answers: string[] = [];
    // CLI starts for as long as the build runs: each one must find a whole build, the old or the new.
    while (running) {
      const answer = await run(process.execPath, [cli, '--version'], { cwd: root }).then(
        (r) => r.stdout.trim(),
        (error: { stderr?: string }) => `failed: ${error.stderr ?? String(error)}`,
      );
      answers.push(answer);
    }
    expect(await built, stderr).toBe(0);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((a) => !/^wallet-vault \d+\.\d+\.\d+/.test(a))).toEqual([]);
  }, 180_000);
});
