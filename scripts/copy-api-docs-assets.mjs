#!/usr/bin/env node
// A step of `npm run build` (scripts/build.mjs): copies the three Swagger UI files the /docs page serves (and the package's
// licence and notice) from the swagger-ui-dist development dependency into dist/api-docs/ (or the folder given), which the
// package ships. The installed package then depends on no swagger-ui-dist, and so not on the
// @scarf/scarf install-time telemetry that swagger-ui-dist pulls in (issue 39, item 1).
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const source = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const target = process.argv[2] ?? path.join(root, 'dist', 'api-docs');
mkdirSync(target, { recursive: true });
for (const name of ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'LICENSE', 'NOTICE']) {
  copyFileSync(path.join(source, name), path.join(target, name));
}
