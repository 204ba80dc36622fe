#!/usr/bin/env node
// Makes package-lock.json one that `npm ci` accepts. npm 11 writes a lock without the optional
// platform packages it cannot fetch here (the registry of this machine kind answers 404 for
// @foundry-rs/anvil-darwin-arm64 and its siblings), and `npm ci` then refuses the lock as out of sync.
// This adds each missing optional dependency of a locked package as an entry naming its version, os and
// cpu (read from the package name), without `resolved`/`integrity`: npm skips it on other platforms and
// fetches it by name and version on its own. Run after `npm install --package-lock-only`:
//   npm install --package-lock-only --no-audit --no-fund && node .ci/complete-lock.mjs
// With --check it changes nothing and exits 1 naming what is missing (test/docs/lock-file.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const OS = { darwin: 'darwin', linux: 'linux', win32: 'win32', windows: 'win32' };
const CPU = { amd64: 'x64', x64: 'x64', arm64: 'arm64', aarch64: 'arm64' };
const added = [];
for (const [key, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const where = `${key.slice(0, key.lastIndexOf('node_modules/') + 'node_modules/'.length) || 'node_modules/'}${name}`;
    if (packages[where] || packages[`node_modules/${name}`]) continue;
    const parts = name.split(/[-/]/);
    const os = parts.map((p) => OS[p]).find(Boolean);
    const cpu = parts.map((p) => CPU[p]).find(Boolean);
    packages[`node_modules/${name}`] = {
      version,
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(entry.dev ? { dev: true } : {}),
      ...(entry.license ? { license: entry.license } : {}),
      optional: true,
      ...(os ? { os: [os] } : {}),
    };
    added.push(`${name}@${version}`);
  }
}
if (process.argv.includes('--check')) {
  if (added.length) console.error(`package-lock.json misses optional dependencies (npm ci would refuse it): ${added.join(', ')}; run node .ci/complete-lock.mjs`);
  process.exit(added.length ? 1 : 0);
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b, 'en')));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added to the lock: ${added.join(', ')}` : 'the lock already names every optional dependency');
