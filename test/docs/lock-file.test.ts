import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const check = (root: string) => spawnSync(process.execPath, [path.join(root, '.ci/complete-lock.mjs'), '--check'], { encoding: 'utf8' });

describe('package-lock.json', () => {
  it('names every optional dependency of a locked package, so `npm ci` accepts it (CI runs npm ci)', () => {
    const r = check(repoRoot);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('is completed by .ci/complete-lock.mjs when npm left platform packages out', () => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'wallet-vault-lock-'));
    try {
      cpSync(path.join(repoRoot, '.ci'), path.join(scratch, '.ci'), { recursive: true });
      const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8'));
      delete lock.packages['node_modules/@foundry-rs/anvil-darwin-arm64'];
      writeFileSync(path.join(scratch, 'package-lock.json'), JSON.stringify(lock, null, 2));
      expect(check(scratch).stderr).toMatch(/misses optional dependencies .*@foundry-rs\/anvil-darwin-arm64@/);
      const fix = spawnSync(process.execPath, [path.join(scratch, '.ci/complete-lock.mjs')], { encoding: 'utf8' });
      expect(fix.stdout).toMatch(/added to the lock: @foundry-rs\/anvil-darwin-arm64@/);
      const fixed = JSON.parse(readFileSync(path.join(scratch, 'package-lock.json'), 'utf8'));
      expect(fixed.packages['node_modules/@foundry-rs/anvil-darwin-arm64']).toMatchObject({ os: ['darwin'], cpu: ['arm64'], optional: true });
      expect(check(scratch).status).toBe(0);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
