#!/usr/bin/env node
// The compiled CLI; `npm run build` (run by `npm start` and `npm test`) produces it.
import '../dist/adapters/cli/main.js';
