import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHAINS } from '../../src/domain/chains.js';
import { SIGNING_KIND_NAMES } from '../../src/domain/signing/kinds/registered-signing-kinds.js';

/*
 * The client's lists of the signing kinds and of the interface's chains, generated from the domain's one
 * registry and one chain table: the client imports nothing of the server (it loads in a browser), so it
 * gets them as files of its own, written here at build time. test/unit/signing-kinds.test.ts holds the
 * committed files to this text.
 */

/** A generated file of one list: `export const NAME = [...] as const` and its union type. */
const listFileText = (source: string, doc: string, name: string, values: readonly string[], type: string): string =>
  [
    `// Generated from ${source} by \`npm run build\`; do not edit.`,
    '',
    `/** ${doc} */`,
    `export const ${name} = [${values.map((value) => `'${value}'`).join(', ')}] as const;`,
    '',
    `export type ${type} = (typeof ${name})[number];`,
    '',
  ].join('\n');

/** client/signing-kinds.ts as generated. */
export const clientSigningKindsFileText = (): string =>
  listFileText(
    'the signing-kind registry (src/domain/signing/kinds/registered-signing-kinds.ts)',
    "The kinds of signature the vault makes: what a policy rule's `kinds`, an approval's `kind` and the policy dry run's `kind` name.",
    'SIGNING_KINDS',
    SIGNING_KIND_NAMES,
    'SigningKindName',
  );

/** client/chains.ts as generated. */
export const clientChainsFileText = (): string =>
  listFileText('the chain table (src/domain/chains.ts)', "The interface's chains; a server adds more with VAULT_CHAINS.", 'CHAINS', CHAINS, 'ChainName');

// `npm run build` runs this from dist/, before compiling the client: node dist/adapters/http/client-lists-file.js [client folder]
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  const client = process.argv[2] ?? fileURLToPath(new URL('../../../client/', import.meta.url));
  writeFileSync(path.join(client, 'signing-kinds.ts'), clientSigningKindsFileText());
  writeFileSync(path.join(client, 'chains.ts'), clientChainsFileText());
}
