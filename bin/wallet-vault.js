#!/usr/bin/env -S node --max-semi-space-size=32
// The compiled CLI; `npm run build` (run by `npm start` and `npm test`) produces it. Before the first
// build (right after `npm install` in a clone) it says what to run instead of failing with a stack trace.
import { existsSync } from 'node:fs';

const main = new URL('../dist/adapters/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(`wallet-vault: not built yet: run \`npm run build\` in ${new URL('..', import.meta.url).pathname} first (npm start builds too)\n`);
  process.exit(2);
}
await import(main.href);
