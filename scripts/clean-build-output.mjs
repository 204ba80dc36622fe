#!/usr/bin/env node
// The first step of `npm run build`: removes what tsc compiled last time (dist/src, adapters, lib, client),
// so a module renamed or removed in the source cannot linger in dist/ and be packed with the next release.
// dist/contracts stays: scripts/compile-contracts.mjs rebuilds it only when the Solidity changed.
import { rmSync } from 'node:fs';
import path from 'node:path';

const dist = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'dist');
for (const folder of ['src', 'adapters', 'lib', 'client']) rmSync(path.join(dist, folder), { recursive: true, force: true });
