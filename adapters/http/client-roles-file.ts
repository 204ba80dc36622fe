import { writeFileSync } from 'node:fs';
import { VAULT_ROUTES } from './routes.js';

/*
 * The client's table of the role each operation needs, generated from the route table: the client imports
 * nothing of the server (it loads in a browser), so it gets the roles as a file of its own, written here at
 * build time. test/client/roles.test.ts holds the committed file to this text.
 */

const literal = (role: string | readonly string[]) => (typeof role === 'string' ? `'${role}'` : `[${role.map((r) => `'${r}'`).join(', ')}]`);

/** client/operation-roles.ts as generated: one line per vault route, in the route table's order. */
export const clientRolesFileText = (): string =>
  [
    '// Generated from the route table (adapters/http/routes.ts) by `npm run build`; do not edit.',
    '',
    '/** The API key role each vault operation (its OpenAPI operationId) needs; a list: any one of them. */',
    'export const OPERATION_ROLE = {',
    ...VAULT_ROUTES.map((route) => `  ${route.operationId}: ${literal(route.role)},`),
    '} as const;',
    '',
    'export type VaultOperation = keyof typeof OPERATION_ROLE;',
    '',
  ].join('\n');

// `npm run build` runs this from dist/, before compiling the client: node dist/adapters/http/client-roles-file.js [path]
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  const target = process.argv[2] ?? new URL('../../../client/operation-roles.ts', import.meta.url);
  writeFileSync(target, clientRolesFileText());
}
