import { invalidArgument } from '../../domain/errors.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import {
  WEBHOOK_EVENT_TYPES,
  type UndeliverableWebhook,
  type WebhookEndpoint,
  type WebhookEventType,
  type WebhookOutbox,
} from '../../ports/webhook-outbox.port.js';
import { audit, OPERATOR } from '../audit/audit-actor.js';
import { requireVault } from '../wallets/wallet-lookup.js';
import { governedWebhook, withEntry, withoutEntry, type GovernedWebhook } from '../../domain/governance.js';
import type { EntriesProposer, MadeProposal } from '../governance/governance.use-case.js';

/** Longest endpoint URL accepted. */
const MAX_URL_LENGTH = 2048;

/**
 * The operator's webhook endpoints (`wallet-vault webhooks add|list|remove|replay|undeliverable`). Adding,
 * removing and replaying are recorded in the audit trail (`webhook.changed`, under the operator who did it), the URL without its query or user part,
 * which may carry a receiver's token.
 */
export class ManageWebhooks {
  constructor(
    private readonly repository: VaultStore,
    private readonly outbox: WebhookOutbox | undefined,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly auditLog: AuditLog,
    /** Why a URL cannot receive webhooks (not https, nor http to a loopback host), or null. */
    private readonly urlProblem: (url: URL) => string | null,
    /** A governed vault's endpoint changes become proposals; absent: endpoints are only rows. */
    private readonly governance?: EntriesProposer,
  ) {}

  /**
   * A new endpoint of the vault: it receives the events appended from now on (no history). On a vault
   * whose signed state governs its webhooks the row is written at once, served nothing until a proposal
   * adding it (made here) is in force; it then gets the events since it was added.
   */
  async add(input: { vaultId: string; url: string; events?: readonly string[] }, actor: string = OPERATOR): Promise<WebhookEndpoint & MadeProposal> {
    const outbox = this.required();
    await requireVault(this.repository, input.vaultId);
    const url = parseUrl(input.url, this.urlProblem);
    const events = eventTypes(input.events);
    // Asked before the row is written, so a vault whose governance does not verify gets no row either.
    const governed = await this.governedWebhooks(input.vaultId);
    const now = this.clock.now();
    const endpoint = await outbox.addEndpoint({ id: this.ids.next(), vaultId: input.vaultId, url: url.href, events, created: now });
    await audit(this.auditLog, 'webhook.changed', now, actor, input.vaultId, endpoint.id, {
      change: 'added',
      url: shown(url),
      events: events.join(','),
    });
    if (governed === null) return endpoint;
    return { ...endpoint, ...(await this.propose(input.vaultId, (hooks) => withEntry(hooks, governedWebhook(endpoint)), actor)) };
  }

  async list(vaultId: string): Promise<WebhookEndpoint[]> {
    await requireVault(this.repository, vaultId);
    return this.outbox ? this.outbox.listEndpoints(vaultId) : [];
  }

  /**
   * Removes an endpoint. On a vault whose signed state lists it, a proposal removing it instead (its
   * receiver may be what watches the vault: silencing it takes the quorum); the row stays, served nothing
   * once the removal is in force, and a later `remove` deletes it. A row the state does not list is
   * deleted at once.
   */
  async remove(vaultId: string, id: string, actor: string = OPERATOR): Promise<MadeProposal> {
    const outbox = this.required();
    await requireVault(this.repository, vaultId);
    const governed = await this.governedWebhooks(vaultId);
    if (governed?.some((w) => w.id === id)) {
      const proposed = await this.propose(vaultId, (hooks) => withoutEntry(hooks, id), actor);
      if (proposed.proposal !== undefined) return proposed;
    }
    const endpoint = (await outbox.listEndpoints(vaultId)).find((e) => e.id === id);
    if (!endpoint || !(await outbox.removeEndpoint(vaultId, id))) throw noEndpoint(vaultId, id);
    await audit(this.auditLog, 'webhook.changed', this.clock.now(), actor, vaultId, id, { change: 'removed', url: shown(new URL(endpoint.url)) });
    return {};
  }

  /**
   * Sends an endpoint its vault's events again from audit `seq` `fromSeq` on, in order (its types only),
   * undeliverable ones included: the delivering instance starts over there at its next pass. At or before
   * the endpoint's cursor only, so that no event is skipped; before the endpoint was added is allowed
   * (a backfill of history). Recorded in the audit trail (`webhook.changed`, change `replayed`).
   */
  async replay(input: { vaultId: string; id: string; fromSeq: number }, actor: string = OPERATOR): Promise<{ endpoint: WebhookEndpoint; previousSeq: number }> {
    const outbox = this.required();
    if (!outbox.rewind) throw invalidArgument('webhooks: this persistence cannot replay events (a release before replays)');
    if (!Number.isSafeInteger(input.fromSeq) || input.fromSeq < 1) throw invalidArgument('from-seq: an audit seq, a whole number of at least 1');
    await requireVault(this.repository, input.vaultId);
    const rewound = await outbox.rewind(input.vaultId, input.id, input.fromSeq);
    if (rewound === null) throw noEndpoint(input.vaultId, input.id);
    const { previousSeq } = rewound;
    if (input.fromSeq - 1 > previousSeq) {
      throw invalidArgument(`from-seq: endpoint ${input.id} is done up to seq ${previousSeq}; a replay starts at or before ${previousSeq + 1} (it never skips events)`);
    }
    const endpoint = (await outbox.listEndpoints(input.vaultId)).find((e) => e.id === input.id);
    // Removed between the two statements: nothing is replayed to it, and nothing is recorded.
    if (!endpoint) throw noEndpoint(input.vaultId, input.id);
    await audit(this.auditLog, 'webhook.changed', this.clock.now(), actor, input.vaultId, input.id, {
      change: 'replayed',
      url: shown(new URL(endpoint.url)),
      fromSeq: input.fromSeq,
      previousSeq,
    });
    return { endpoint, previousSeq };
  }

  /** The events given up on after 24 h of failed attempts, most recent first. */
  async undeliverable(vaultId: string, limit = 100): Promise<UndeliverableWebhook[]> {
    await requireVault(this.repository, vaultId);
    return this.outbox ? this.outbox.listUndeliverable({ vaultId, limit }) : [];
  }

  private async governedWebhooks(vaultId: string): Promise<readonly GovernedWebhook[] | null> {
    return this.governance === undefined ? null : this.governance.governedEntries(vaultId, 'webhooks');
  }

  private async propose(vaultId: string, edit: (hooks: readonly GovernedWebhook[]) => GovernedWebhook[], actor: string): Promise<MadeProposal> {
    const proposal = await this.governance!.proposeEntries(vaultId, 'webhooks', edit, actor);
    return proposal === null ? {} : { proposal };
  }

  private required(): WebhookOutbox {
    if (!this.outbox) throw invalidArgument('webhooks: this persistence keeps no webhook endpoints (a release before webhooks)');
    return this.outbox;
  }
}

function parseUrl(raw: string, problem: (url: URL) => string | null): URL {
  if (raw.length > MAX_URL_LENGTH) throw invalidArgument(`url: at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidArgument('url: must be an https:// URL');
  }
  if (url.hash !== '') throw invalidArgument('url: must not have a #fragment');
  // Deliveries authenticate themselves by their signature; a password in the URL would be stored, listed and sent.
  if (url.username !== '' || url.password !== '') throw invalidArgument('url: must not carry a user or password (put a token in the path or query if the receiver needs one)');
  const why = problem(url);
  if (why !== null) throw invalidArgument(`url: ${why}`);
  return url;
}

/** Every type when none are named; an unknown name is refused, naming the ones there are. */
function eventTypes(names: readonly string[] | undefined): WebhookEventType[] {
  if (names === undefined || names.length === 0) return [...WEBHOOK_EVENT_TYPES];
  const known: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) throw invalidArgument(`events: ${unknown.join(', ')} unknown (types: ${WEBHOOK_EVENT_TYPES.join(', ')})`);
  return WEBHOOK_EVENT_TYPES.filter((t) => names.includes(t));
}

const noEndpoint = (vaultId: string, id: string) => invalidArgument(`id: vault ${vaultId} has no webhook endpoint ${id}`);

/** The URL as the audit trail shows it: scheme, host and path only. */
const shown = (url: URL): string => `${url.protocol}//${url.host}${url.pathname}`;
