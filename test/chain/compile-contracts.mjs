// Compiles the test contracts with solc-js in its own process: solc installs a global
// unhandledRejection handler that throws, which must never run inside a test worker.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const here = path.dirname(fileURLToPath(import.meta.url));
const sourcesDir = path.join(here, 'contracts');
const outDir = process.argv[2];
const sources = Object.fromEntries(
  readdirSync(sourcesDir)
    .filter((f) => f.endsWith('.sol'))
    .map((f) => [f, { content: readFileSync(path.join(sourcesDir, f), 'utf8') }]),
);
const input = {
  language: 'Solidity',
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    viaIR: true,
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input), { import: (p) => ({ contents: readFileSync(path.join(sourcesDir, p), 'utf8') }) }));
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
if (errors.length > 0) {
  console.error(errors.map((e) => e.formattedMessage).join('\n'));
  process.exit(1);
}
mkdirSync(outDir, { recursive: true });
for (const [file, contracts] of Object.entries(output.contracts)) {
  for (const [name, c] of Object.entries(contracts)) {
    if (!c.evm.bytecode.object) continue;
    writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify({ abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, source: file }));
  }
}
console.log(`compiled ${Object.keys(sources).length} sources with solc ${solc.version()}`);
