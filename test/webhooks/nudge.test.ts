import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DISPATCHER_SETTINGS, WebhookDispatcher } from '../../adapters/webhooks/webhook-dispatcher.js';
import { WebhookKeys } from '../../adapters/webhooks/webhook-signing-key.js';
import type { AuditAction } from '../../src/ports/audit-log.port.js';
import type { AuditWatch } from '../../src/ports/persistence.port.js';
import type { WebhookOutbox } from '../../src/ports/webhook-outbox.port.js';
import { inMemoryPersistence, type InMemoryJobLock } from '../support/in-memory.persistence.js';
import { until } from '../support/webhook-receiver.js';
import { anAuditEvent } from '../support/wallet-mother.js';

/** Long enough that any read of the outbox seen here was prompted by an event, never by the poll. */
const HOUR = 3_600_000;
/** How long an event would take at most to prompt a pass (NUDGE_SPACING_MS is 25). */
const SETTLE_MS = 150;

/**
 * The dispatcher hears of this process's events only while an endpoint may want them: with none, a
 * sign's audit record prompts nothing (its write costs a set look-up); an endpoint added here makes the
 * next events prompt a pass at once again.
 */
describe('the webhook nudge', () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  const world = () => {
    const persistence = inMemoryPersistence();
    const outbox = { reads: 0, anyEndpoint: false };
    const stub = {
      behind: async () => {
        outbox.reads++;
        return { head: 0, endpoints: [], anyEndpoint: outbox.anyEndpoint };
      },
    } as unknown as WebhookOutbox;
    const clock = { now: () => new Date() };
    const logger = { warn() {}, error() {} };
    // What the dispatcher subscribes to, each subscription as it asked for it.
    const watches: { actions: ReadonlySet<AuditAction>; active: boolean }[] = [];
    const watchAudit: AuditWatch = (listener, actions) => {
      const watch = { actions: actions!, active: true };
      watches.push(watch);
      const unwatch = persistence.watchAudit!(listener, actions);
      return () => {
        watch.active = false;
        unwatch();
      };
    };
    const dispatcher = new WebhookDispatcher(stub, persistence.jobLock!, new WebhookKeys(undefined, stub, clock.now), 'd', clock, logger, undefined, watchAudit, {
      ...DEFAULT_DISPATCHER_SETTINGS,
      pollIntervalMs: HOUR,
    });
    stops.push(() => dispatcher.stop());
    const append = (action: AuditAction) => persistence.auditLog.append(anAuditEvent({ action }));
    return { persistence, outbox, watches, dispatcher, append };
  };

  it('reads the outbox for no event while it knows no endpoint, and for each once an endpoint is added here', async () => {
    const { outbox, dispatcher, append } = world();
    dispatcher.start();
    await until(() => outbox.reads === 1, 'the first read');
    await append('signature.issued');
    await append('wallet.expired');
    await sleep(SETTLE_MS);
    expect(outbox.reads).toBe(1);

    // An endpoint added by this process: the change itself prompts nothing (as before), the next event does.
    outbox.anyEndpoint = true;
    await append('webhook.changed');
    await append('signature.issued');
    await until(() => outbox.reads === 2, 'a read prompted by the sign after the endpoint was added');

    // The last endpoint removed (elsewhere): the read that finds none stops the prompts again.
    outbox.anyEndpoint = false;
    await sleep(SETTLE_MS);
    await append('signature.issued');
    await until(() => outbox.reads === 3, 'the read that finds no endpoint');
    await append('signature.issued');
    await sleep(SETTLE_MS);
    expect(outbox.reads).toBe(3);
  });

  it('hears of endpoint changes only while another instance holds the lock, and of nothing once stopped', async () => {
    const { persistence, watches, dispatcher } = world();
    const release = (persistence.jobLock as InMemoryJobLock).holdElsewhere('webhooks');
    dispatcher.start();
    await until(() => watches.at(-1)?.actions.size === 1, 'the narrowed watch');
    expect([...watches.at(-1)!.actions]).toEqual(['webhook.changed']);
    expect(watches.filter((w) => w.active)).toHaveLength(1);
    await dispatcher.stop();
    release();
    expect(watches.filter((w) => w.active)).toHaveLength(0);
  });
});
