import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { transformWithOxc } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlitePersistence } from 'wallet-vault/persistence/sqlite';

const repoRoot = path.resolve(import.meta.dirname, '../..');

/** The first ```ts block of docs/library.md, as written there: the doc cannot drift from what runs here. */
function firstSnippet(): string {
  const doc = readFileSync(path.join(repoRoot, 'docs/library.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/library.md has no ```ts block');
  return block[1]!;
}

/** The two places that are the reader's to choose: where the data lives, and the port (0: any free one here). */
function adapted(snippet: string, dataDir: string): string {
  const replacements: [string, string][] = [
    ['/var/lib/my-app', dataDir],
    ['app.listen(3000', 'app.listen(0'],
  ];
  let code = snippet;
  for (const [from, to] of replacements) {
    expect(code, `the snippet no longer holds ${from}`).toContain(from);
    code = code.replaceAll(from, to);
  }
  return code;
}

interface Run {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
}

/** Runs the snippet until it serves, then stops it as its SIGTERM handler expects; resolves once it exited. */
function runUntilServing(code: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: repoRoot, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('serving vault')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (exitCode) => resolve({ stdout, stderr, code: exitCode }));
  });
}

describe("docs/library.md's first snippet", () => {
  let dir: string;
  let code: string;
  const env = { MASTER_KEY: '5a'.repeat(32), VAULT_AUTH_SECRET: 'a-secret-of-at-least-32-characters!!' };
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-first-snippet-'));
    code = (await transformWithOxc(adapted(firstSnippet(), dir), 'snippet.ts')).code;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is safe to run twice on one data directory: the second run reuses the vault of the first', async () => {
    const first = await runUntilServing(code, env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const created = /API key of vault (\S+) \(shown once\): wv_/.exec(first.stdout);
    expect(created, first.stdout).not.toBeNull();
    const vaultId = created![1]!;
    expect(first.stdout).toContain(`serving vault ${vaultId}`);

    const second = await runUntilServing(code, env);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('API key');
    expect(second.stdout).toContain(`serving vault ${vaultId}`);

    const persistence = await sqlitePersistence({ path: path.join(dir, 'vault.db') });
    try {
      expect((await persistence.repository.listVaults()).map((v) => v.id)).toEqual([vaultId]);
      expect(await persistence.repository.listApiKeys(vaultId)).toHaveLength(1);
    } finally {
      await persistence.close();
    }
  }, 60_000);
});
