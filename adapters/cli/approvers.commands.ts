import type { Command } from 'commander';
import { print, proposed } from './output.js';

const withPersistence: typeof import('./operator-context.js').withPersistence = async (action) =>
  (await import('./operator-context.js')).withPersistence(action);
const withManageVaults: typeof import('./operator-context.js').withManageVaults = async (action) =>
  (await import('./operator-context.js')).withManageVaults(action);
const consoleInvites = async () => (await import('../../src/application/console/console-invites.js')).ConsoleInvites;

/** A governed vault's enrolment, as `approvers list` prints it. */
const standing = (e: { status: string; proposal: string | null } | undefined): string =>
  e === undefined ? '' : e.status === 'in-force' ? '  in force' : `  waiting for the quorum${e.proposal ? ` (proposal ${e.proposal})` : ' (no proposal pending)'}`;

/**
 * `wallet-vault approvers invite|list|revoke`: the approvers' console's people (docs/console.md). An
 * approver is an API key with a passkey: `list` shows them, `revoke` is `api-keys revoke` (its console
 * sessions are refused from then on).
 */
export function registerApproverCommands(program: Command): void {
  const approvers = program.command('approvers').description("approvers of the approvers' console: people who approve with a passkey (docs/console.md)");
  approvers
    .command('invite')
    .description('print a one-time enrolment URL (needs VAULT_PUBLIC_URL); whoever opens it first becomes an approver of the vault')
    .requiredOption('--vault <vaultId>', 'the vault the approver will approve for')
    .option('--group <group>', 'the approver group its votes count in')
    .option('--expires <duration>', 'how long the URL can be used: 1m to 30d', '24h')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; group?: string; expires: string; json?: boolean }) => {
      const ConsoleInvites = await consoleInvites();
      const { url, expires, governed } = await withPersistence((c) => c.get(ConsoleInvites).invite(o.vault, { ...(o.group ? { group: o.group } : {}), expires: o.expires }));
      print(!!o.json, { url, expires: expires.toISOString() }, () =>
        `${url}\n(one use, until ${expires.toISOString()}; send it to the approver over a channel you trust)` +
        (governed ? '\nthe vault is governed: the enrolment makes a proposal listing the passkey; its votes count once the approvers sign it (docs/console.md)' : ''),
      );
    });
  approvers
    .command('list')
    .description('list the approvers enrolled with a passkey (revoked ones included)')
    .requiredOption('--vault <vaultId>', 'vault whose approvers to list')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; json?: boolean }) => {
      const ConsoleInvites = await consoleInvites();
      const rows = await withPersistence((c) => c.get(ConsoleInvites).list(o.vault));
      print(!!o.json, rows, () =>
        rows.map((r) => `${r.id}  ${JSON.stringify(r.name)}  enrolled ${r.created}  ${r.revoked ? `revoked ${r.revoked}` : 'active'}${r.group === null ? '' : `  group ${r.group}`}${standing(r.enrolment)}`).join('\n') ||
        '(no approvers enrolled)',
      );
    });
  approvers
    .command('revoke')
    .description("revoke an approver (its API key): its votes stop counting and its console sessions are refused")
    .requiredOption('--id <keyId>', 'id of the approver (see approvers list)')
    .option('--json', 'print JSON')
    .action(async (o: { id: string; json?: boolean }) => {
      // On a governed vault the key is refused at once and a proposal removes it (and its passkey) from the signed state.
      const { proposal } = await withManageVaults((m) => m.revokeApiKey(o.id));
      print(!!o.json, { id: o.id, revoked: true, ...(proposal ? { proposal } : {}) }, () =>
        `approver ${o.id} revoked` + proposed(null, proposal, "its removal (and its passkey's) from the signed state takes effect once the approvers sign it; its votes count for nothing from now on"),
      );
    });
}
