import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { changelogSection, releaseNotes } from '../../scripts/release-notes.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHANGELOG = `# Changelog\n\n## [Unreleased]\n\n### Added\n- next\n\n## [1.2.0] - 2026-12-01\n\n### Fixed\n- a bug\n\n## [1.1.0] - 2026-11-01\n\n- older\n\n[Unreleased]: x\n`;

describe('release notes from CHANGELOG.md', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('take exactly the version section and name the commit, the tag and a dirty tree', () => {
    expect(changelogSection(CHANGELOG, '1.2.0')).toEqual({ heading: '[1.2.0] - 2026-12-01', body: '### Fixed\n- a bug' });
    expect(changelogSection(CHANGELOG, '1.1.0')!.body).toBe('- older');
    const notes = releaseNotes({ changelog: CHANGELOG, version: '1.2.0', commit: 'abc123', tag: 'v1.2.0', dirty: false }) as string;
    expect(notes).toContain('Built from commit abc123 (tag v1.2.0).');
    expect(notes).toContain('- a bug');
    expect(notes).not.toContain('older');
    expect(releaseNotes({ changelog: CHANGELOG, version: '1.2.0', commit: 'abc', tag: null, dirty: true })).toMatch(/no tag points at it[\s\S]*not a release build/);
  });

  it('refuse a version the changelog does not describe', () => {
    expect(() => releaseNotes({ changelog: CHANGELOG, version: '9.9.9', commit: 'abc', tag: null, dirty: false })).toThrow(/no section "## \[9\.9\.9\]"/);
  });

  it('npm run release writes the tarball, checksum, SBOM named after the package, and the notes of package.json\'s version', async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'wallet-vault-release-'));
    dirs.push(out);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    await run(process.execPath, [path.join(root, 'scripts/release.mjs'), out], { cwd: root, env, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
    const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
    const base = `wallet-vault-${version}`;
    expect((await readdir(out)).sort()).toEqual([`${base}.cdx.json`, `${base}.notes.md`, `${base}.tgz`, `${base}.tgz.integrity`, `${base}.tgz.sha256`]);
    const sbom = JSON.parse(await readFile(path.join(out, `${base}.cdx.json`), 'utf8')) as { metadata: { component: { name: string } } };
    expect(sbom.metadata.component.name).toBe('wallet-vault');
    const head = (await run('git', ['rev-parse', 'HEAD'], { cwd: root })).stdout.trim();
    expect(await readFile(path.join(out, `${base}.notes.md`), 'utf8')).toContain(`Built from commit ${head}`);
  }, 300_000);
});
