import type { Command } from 'commander';
import { isDomainError } from '../../src/domain/errors.js';
import { parseOperatorName, parseOperatorRoles, OPERATOR_ROLES, type OperatorRole } from '../../src/domain/operator.js';
import type { OperatorView } from '../../src/application/access/manage-operators.use-case.js';
import { EXIT, fail, print } from './output.js';

const withPersistence: typeof import('./operator-context.js').withPersistence = async (action) =>
  (await import('./operator-context.js')).withPersistence(action);
const manageOperators = async () => (await import('../../src/application/access/manage-operators.use-case.js')).ManageOperators;

const present = (o: OperatorView) => ({
  id: o.id,
  name: o.name,
  roles: [...o.roles],
  vaults: o.vaults === null ? null : [...o.vaults],
  created: o.created.toISOString(),
  revoked: o.revoked === null ? null : o.revoked.toISOString(),
});
const scopeText = (vaults: readonly string[] | null) => (vaults === null ? 'every vault' : `vaults ${vaults.join(', ')}`);
/** A repeatable option's values, in order. */
const collect = (value: string, previous: string[] = []) => [...previous, value];
/** A DomainError of a parse as commander's usage error (exit 2), before the store is opened. */
const usage = <T>(parse: () => T): T => {
  try {
    return parse();
  } catch (error) {
    if (isDomainError(error)) fail(error.message, EXIT.USAGE, 'USAGE');
    throw error;
  }
};

/**
 * `wallet-vault operators create|list|revoke` (docs/operators.md): named operators, each with a credential
 * of its own for the admin API. Run locally they act as the break-glass local operator (audited `operator`):
 * whoever can open the store is the one who can make the first operators.
 */
export function registerOperatorCommands(program: Command): void {
  const operators = program.command('operators').description('named operators: people with a credential, roles and a vault scope for the admin API (docs/operators.md)');
  operators
    .command('create')
    .description('create a named operator and print its credential once (Authorization: Bearer <credential> on /api/v1/admin/)')
    .requiredOption('--name <name>', 'the person (lower case: a-z, 0-9, ".", "_", "-"); recorded in the audit trail as operator:<name>')
    .option('--roles <roles>', `comma-separated: ${OPERATOR_ROLES.join(', ')}`)
    .option('--role <role>', 'one role (repeatable; with --roles or instead of it)', collect)
    .option('--vault <vaultId>', 'a vault the operator acts on (repeatable; default: every vault)', collect)
    .option('--json', 'print JSON')
    .action(async (o: { name: string; roles?: string; role?: string[]; vault?: string[]; json?: boolean }) => {
      const given = [...(o.roles === undefined ? [] : [o.roles]), ...(o.role ?? [])];
      if (given.length === 0) fail(`give the operator's roles: --roles ${OPERATOR_ROLES.join(',')} (one or more)`, EXIT.USAGE);
      const roles: OperatorRole[] = usage(() => parseOperatorRoles(given.join(',')));
      const name = usage(() => parseOperatorName(o.name));
      const ManageOperators = await manageOperators();
      const { operator, credential } = await withPersistence((c) => c.get(ManageOperators).create({ name, roles, ...(o.vault === undefined ? {} : { vaults: o.vault }) }));
      const shown = present(operator);
      print(!!o.json, { id: shown.id, name: shown.name, apiKey: credential, roles: shown.roles, vaults: shown.vaults }, () =>
        `operator ${shown.name} created (id ${shown.id}; roles ${shown.roles.join(',')}; ${scopeText(shown.vaults)}). ` +
          `Its credential is shown only now; hand it to ${shown.name} to store safely:\n${credential}`,
      );
    });
  operators
    .command('list')
    .description('list the operators (names, roles, scope; never credentials)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const ManageOperators = await manageOperators();
      const rows = (await withPersistence((c) => c.get(ManageOperators).list())).map(present);
      print(!!o.json, rows, () =>
        rows.map((r) => `${r.name}  ${r.id}  roles ${r.roles.join(',')}  ${scopeText(r.vaults)}  ${r.revoked === null ? 'active' : `revoked ${r.revoked}`}`).join('\n') || '(no operators)',
      );
    });
  operators
    .command('revoke')
    .description("revoke an operator: its credential is refused from the next call on (its name stays taken, so the trail's records keep naming one person)")
    .requiredOption('--name <name>', 'the operator')
    .option('--json', 'print JSON')
    .action(async (o: { name: string; json?: boolean }) => {
      const ManageOperators = await manageOperators();
      const revoked = present(await withPersistence((c) => c.get(ManageOperators).revoke(o.name)));
      print(!!o.json, revoked, () => `operator ${revoked.name} revoked at ${revoked.revoked}`);
    });
}
