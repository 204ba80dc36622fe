#!/usr/bin/env node
// A step of `npm run build` (scripts/build.mjs): puts the approvers' console page (docs/console.md) into
// dist/console-page/ (or the folder given), which the package ships and the vault serves at /console/:
// the page's own files from adapters/console-page/ (index.html, the ES modules, the stylesheet, as written:
// no bundler) and the browser bundle of @simplewebauthn/browser with its licence, copied from the
// development dependency, so the installed package loads nothing from elsewhere and depends on nothing for it.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const page = path.join(root, 'adapters', 'console-page');
const target = process.argv[2] ?? path.join(root, 'dist', 'console-page');
// The package's `exports` name no file of it (only "."), so it is found by its folder in node_modules.
const browser = path.join(root, 'node_modules', '@simplewebauthn', 'browser');

mkdirSync(target, { recursive: true });
for (const name of readdirSync(page)) {
  if (/^[a-z0-9-]+\.(html|js|css)$/.test(name)) copyFileSync(path.join(page, name), path.join(target, name));
}
copyFileSync(path.join(browser, 'dist', 'bundle', 'index.umd.min.js'), path.join(target, 'simplewebauthn-browser.js'));
copyFileSync(path.join(browser, 'LICENSE.md'), path.join(target, 'simplewebauthn-browser.LICENSE.md'));
