#!/usr/bin/env node
// `npm run release`: the files of a release, in one folder (release/ unless given): the tarball that
// `npm pack` writes, its SHA-256 in the `sha256sum` format (checked with `sha256sum -c`), the npm
// integrity string an application's lock file will record (`sha512-…`), a CycloneDX SBOM of what the
// package depends on, and the release notes (the version's CHANGELOG.md section and the commit it was
// built from). Until the package is published, an application installs this tarball (docs/library.md).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { releaseNotes } from './release-notes.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const out = path.resolve(root, process.argv[2] ?? 'release');
mkdirSync(out, { recursive: true });

const git = (args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
// Written first: a version without its changelog section stops the release before anything is packed.
const notes = releaseNotes({
  changelog: readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8'),
  version,
  commit: git(['rev-parse', 'HEAD']),
  tag: (() => {
    try {
      return git(['describe', '--exact-match', '--tags', 'HEAD']);
    } catch {
      return null;
    }
  })(),
  dirty: git(['status', '--porcelain', '--untracked-files=no']) !== '',
});
const npm = (args) => execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 256 * 1024 * 1024 });

// prepack builds dist/ (npm run build) before the files are gathered.
const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', out]));
const tarball = path.join(out, packed.filename);
const bytes = readFileSync(tarball);
const sha256 = createHash('sha256').update(bytes).digest('hex');
writeFileSync(`${tarball}.sha256`, `${sha256}  ${packed.filename}\n`);
writeFileSync(`${tarball}.integrity`, `${packed.integrity}\n`);

const base = packed.filename.replace(/\.tgz$/, '');
// The SBOM of the package as an application gets it: its run-time dependencies, not the tools that build it.
// npm names the root component after the checkout's folder (`main`, `wallet-vault-1`): it is the package.
const sbom = JSON.parse(npm(['sbom', '--sbom-format', 'cyclonedx', '--omit', 'dev', '--omit', 'peer']));
sbom.metadata.component.name = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).name;
writeFileSync(path.join(out, `${base}.cdx.json`), `${JSON.stringify(sbom, null, 2)}\n`);

writeFileSync(path.join(out, `${base}.notes.md`), notes);

console.log(`${tarball}\n  sha256    ${sha256}\n  integrity ${packed.integrity}\n  sbom      ${path.join(out, `${base}.cdx.json`)}\n  notes     ${path.join(out, `${base}.notes.md`)}`);
