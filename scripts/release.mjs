#!/usr/bin/env node
// `npm run release`: the files of a release, in one folder (release/ unless given): the tarball that
// `npm pack` writes, its SHA-256 in the `sha256sum` format (checked with `sha256sum -c`), the npm
// integrity string an application's lock file will record (`sha512-…`), and a CycloneDX SBOM of what the
// package depends on. Until the package is published, an application installs this tarball (docs/library.md).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const out = path.resolve(root, process.argv[2] ?? 'release');
mkdirSync(out, { recursive: true });

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
writeFileSync(path.join(out, `${base}.cdx.json`), npm(['sbom', '--sbom-format', 'cyclonedx', '--omit', 'dev', '--omit', 'peer']));

console.log(`${tarball}\n  sha256    ${sha256}\n  integrity ${packed.integrity}\n  sbom      ${path.join(out, `${base}.cdx.json`)}`);
