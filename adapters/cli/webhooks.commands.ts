import type { Command } from 'commander';
import type { UndeliverableWebhook, WebhookEndpoint } from '../../src/ports/webhook-outbox.port.js';
import { print, proposed } from './output.js';

const withPersistence: typeof import('./operator-context.js').withPersistence = async (action) =>
  (await import('./operator-context.js')).withPersistence(action);
const manageWebhooks = async () => (await import('../../src/application/vaults/manage-webhooks.use-case.js')).ManageWebhooks;

const present = (e: WebhookEndpoint) => ({
  id: e.id,
  vault: e.vaultId,
  url: e.url,
  events: e.events,
  created: e.created.toISOString(),
  deliveredSeq: e.deliveredSeq,
  attempts: e.attempts,
  nextAttempt: e.nextAttempt?.toISOString() ?? null,
  firstFailure: e.firstFailure?.toISOString() ?? null,
  lastError: e.lastError,
});

const presentUndeliverable = (u: UndeliverableWebhook) => ({
  endpoint: u.endpointId,
  vault: u.vaultId,
  seq: u.seq,
  type: u.type,
  firstFailure: u.firstFailure.toISOString(),
  givenUp: u.givenUp.toISOString(),
  attempts: u.attempts,
  lastError: u.lastError,
});

const describe = (e: ReturnType<typeof present>) =>
  [
    `${e.id}  ${e.url}`,
    `  events ${e.events.join(', ')}; delivered up to audit seq ${e.deliveredSeq}`,
    ...(e.firstFailure === null ? [] : [`  FAILING since ${e.firstFailure}: ${e.attempts} attempts, last ${e.lastError}; next ${e.nextAttempt}`]),
  ].join('\n');

/**
 * `wallet-vault webhooks add|list|remove|replay|undeliverable`: a vault's webhook endpoints (docs/webhooks.md).
 * Adding, removing and replaying are recorded in the audit trail.
 */
export function registerWebhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description("a vault's webhook endpoints: signed deliveries of its events (docs/webhooks.md)");
  webhooks
    .command('add')
    .description('add an endpoint; it receives the events from now on (no history)')
    .requiredOption('--vault <vaultId>', 'the vault whose events it receives')
    .requiredOption('--url <url>', 'https:// URL (http:// only to a loopback host)')
    .option('--events <types>', 'comma-separated event types (default: all)')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; url: string; events?: string; json?: boolean }) => {
      const ManageWebhooks = await manageWebhooks();
      const events = o.events?.split(',').map((v) => v.trim()).filter((v) => v !== '');
      const endpoint = await withPersistence((c) => c.get(ManageWebhooks).add({ vaultId: o.vault, url: o.url, events }));
      const shown = present(endpoint);
      const { proposal } = endpoint;
      print(!!o.json, { ...shown, ...(proposal ? { proposal } : {}) }, () =>
        `webhook endpoint added to vault ${o.vault}:\n${describe(shown)}` + proposed(o.vault, proposal, 'it is delivered to once the approvers sign it'),
      );
    });
  webhooks
    .command('list')
    .description("list a vault's endpoints and how far delivery has got")
    .requiredOption('--vault <vaultId>', 'the vault')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; json?: boolean }) => {
      const ManageWebhooks = await manageWebhooks();
      const rows = (await withPersistence((c) => c.get(ManageWebhooks).list(o.vault))).map(present);
      print(!!o.json, rows, () => rows.map(describe).join('\n') || `(vault ${o.vault} has no webhook endpoints)`);
    });
  webhooks
    .command('remove')
    .description('remove an endpoint: nothing more is delivered to it')
    .requiredOption('--vault <vaultId>', 'the vault')
    .argument('<id>', 'the endpoint id (see webhooks list)')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { vault: string; json?: boolean }) => {
      const ManageWebhooks = await manageWebhooks();
      const { proposal } = await withPersistence((c) => c.get(ManageWebhooks).remove(o.vault, id));
      print(!!o.json, proposal ? { vault: o.vault, id, removed: false, proposal } : { vault: o.vault, id, removed: true }, () =>
        proposal
          ? `webhook endpoint ${id} of vault ${o.vault}: its removal` + proposed(o.vault, proposal, 'it gets nothing more once the approvers sign it')
          : `webhook endpoint ${id} removed from vault ${o.vault}`,
      );
    });
  webhooks
    .command('replay')
    .description("send an endpoint the vault's events again from an audit seq on, in order (undeliverable ones included)")
    .requiredOption('--vault <vaultId>', 'the vault')
    .requiredOption('--from-seq <seq>', 'the audit seq to start from (see webhooks undeliverable, or audit list); at most one past the endpoint\'s cursor')
    .argument('<id>', 'the endpoint id (see webhooks list)')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { vault: string; fromSeq: string; json?: boolean }) => {
      const ManageWebhooks = await manageWebhooks();
      const fromSeq = /^\d{1,15}$/.test(o.fromSeq) ? Number(o.fromSeq) : Number.NaN;
      const { endpoint, previousSeq } = await withPersistence((c) => c.get(ManageWebhooks).replay({ vaultId: o.vault, id, fromSeq }));
      const shown = { ...present(endpoint), fromSeq, previousSeq };
      print(!!o.json, shown, () =>
        `webhook endpoint ${id} of vault ${o.vault}: its events from audit seq ${fromSeq} on are sent again, in order, at the delivering instance's next pass (it was done up to seq ${previousSeq})`,
      );
    });
  webhooks
    .command('undeliverable')
    .description('events given up on after 24 h of failed attempts, most recent first')
    .requiredOption('--vault <vaultId>', 'the vault')
    .option('--limit <n>', 'at most this many', '100')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; limit: string; json?: boolean }) => {
      const ManageWebhooks = await manageWebhooks();
      const limit = Math.max(1, Math.min(10_000, Number.parseInt(o.limit, 10) || 100));
      const rows = (await withPersistence((c) => c.get(ManageWebhooks).undeliverable(o.vault, limit))).map(presentUndeliverable);
      print(!!o.json, rows, () =>
        rows.map((r) => `seq ${r.seq} ${r.type} to ${r.endpoint}: given up ${r.givenUp} after ${r.attempts} attempts (${r.lastError ?? '-'})`).join('\n') ||
          '(no undeliverable events)',
      );
    });
}
