import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reply } from './routes.js';

/*
 * The approvers' console's files (docs/console.md): `index.html` at `GET /console`, every other file of
 * the folder at `GET /console/assets/<name>`. In the package they are `dist/console-page/` (copied there by
 * scripts/copy-console-page.mjs at build, with the @simplewebauthn/browser bundle as
 * simplewebauthn-browser.js); a source checkout serves `adapters/console-page/` and that bundle from the
 * development dependency. Read once,
 * on first use; names are only those the folder held then (no path, no dot file), so a request names
 * nothing else.
 */

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The browser bundle's name among the assets (what index.html loads). */
export const BROWSER_BUNDLE = 'simplewebauthn-browser.js';

/**
 * Where the console's files are: the package's dist/console-page/; else (a source checkout not built) the
 * page's own folder adapters/console-page/, with the browser bundle of the development dependency.
 */
export function consoleAssetsDir(): { dir: string; bundle?: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'package.json'))) {
      const packaged = path.join(dir, 'dist', 'console-page');
      if (existsSync(path.join(packaged, 'index.html'))) return { dir: packaged };
      const bundle = path.join(dir, 'node_modules', '@simplewebauthn', 'browser', 'dist', 'bundle', 'index.umd.min.js');
      return { dir: path.join(dir, 'adapters', 'console-page'), ...(existsSync(bundle) ? { bundle } : {}) };
    }
    dir = path.dirname(dir);
  }
  return { dir: path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'console-page') };
}

/** The page and its assets as answers; undefined for a name the folder does not hold (a 404). */
export function consoleAssets(dir?: string) {
  let files: Map<string, Buffer> | undefined;
  const load = (): Map<string, Buffer> => {
    if (files) return files;
    const from = dir === undefined ? consoleAssetsDir() : { dir };
    files = new Map();
    for (const name of existsSync(from.dir) ? readdirSync(from.dir) : []) {
      if (NAME.test(name) && TYPES[path.extname(name)] !== undefined) files.set(name, readFileSync(path.join(from.dir, name)));
    }
    if (from.bundle !== undefined && !files.has(BROWSER_BUNDLE)) files.set(BROWSER_BUNDLE, readFileSync(from.bundle));
    return files;
  };
  const reply = (name: string, cache: string): Reply | undefined => {
    const body = load().get(name);
    return body === undefined ? undefined : { status: 200, type: TYPES[path.extname(name)]!, headers: { 'Cache-Control': cache }, body };
  };
  return {
    // `no-cache` (revalidate every time): the names are not content-hashed, and an upgraded vault must
    // not serve a browser yesterday's app.js.
    page: (): Reply | undefined => reply('index.html', 'no-cache'),
    /** A file of the folder but index.html (the page itself is `/console/`). */
    asset: (name: string): Reply | undefined => (NAME.test(name) && name !== 'index.html' ? reply(name, 'no-cache') : undefined),
  };
}
