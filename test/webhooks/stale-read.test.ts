import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DISPATCHER_SETTINGS, WebhookDispatcher } from '../../adapters/webhooks/webhook-dispatcher.js';
import { generateWebhookKeyPem, WebhookKeys } from '../../adapters/webhooks/webhook-signing-key.js';
import type { AuditRecord } from '../../src/ports/audit-log.port.js';
import type { JobLock } from '../../src/ports/job-lock.port.js';
import type { WebhookEndpoint, WebhookOutbox } from '../../src/ports/webhook-outbox.port.js';
import { startReceiver, until, type Receiver } from '../support/webhook-receiver.js';

/**
 * A pass reads the outbox while the drain of the pass before is still sending. When that drain delivers,
 * moves the cursor and settles before the read answers, the read describes the endpoint as it was before
 * the delivery: a drain started from it would send the delivered event again. Found by the two-instance
 * test on a busy CI machine (PostgreSQL answers the read and the cursor's write on different connections,
 * in either order); here the order is forced, so it is played every run.
 */
describe('the webhook dispatcher and a read of the outbox older than its own last delivery', () => {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  it('sends the event once: the stale description of the endpoint starts no second drain', async () => {
    const receiver: Receiver = await startReceiver();
    closing.push(() => receiver.close());

    const event: AuditRecord = {
      action: 'signature.issued',
      at: new Date(),
      actor: 'api-key:k',
      vaultId: 'v',
      subject: '0x' + 'ab'.repeat(32),
      details: {},
      seq: 1,
      prevHash: '0'.repeat(64),
      hash: '1'.repeat(64),
    };
    let stored: WebhookEndpoint = {
      id: 'e',
      vaultId: 'v',
      url: receiver.url,
      events: ['signature.issued'],
      created: new Date(),
      deliveredSeq: 0,
      attempts: 0,
      nextAttempt: null,
      firstFailure: null,
      lastError: null,
    };
    const describeOutbox = (endpoint: WebhookEndpoint) => ({
      head: event.seq,
      endpoints: endpoint.deliveredSeq < event.seq ? [{ ...endpoint, nextSeq: event.seq }] : [],
      anyEndpoint: true,
    });

    // The second read takes its snapshot at once but answers only after the first drain has settled.
    let reads = 0;
    let answerStaleRead: (() => void) | undefined;
    const staleReadStarted = new Promise<void>((resolve) => {
      answerStaleRead = resolve;
    });
    let letStaleReadAnswer: () => void = () => undefined;
    const staleReadMayAnswer = new Promise<void>((resolve) => {
      letStaleReadAnswer = resolve;
    });
    const outbox = {
      behind: async () => {
        reads++;
        const snapshot = describeOutbox(stored);
        if (reads === 2) {
          answerStaleRead!();
          await staleReadMayAnswer;
        }
        return snapshot;
      },
      nextEvent: async (endpoint: WebhookEndpoint, upTo: number) => (endpoint.deliveredSeq < event.seq && event.seq <= upTo ? event : null),
      advance: async (id: string, from: number, to: number) => {
        // The first delivery's cursor moves only once the second read has its (now stale) snapshot.
        await staleReadStarted;
        if (id !== stored.id || stored.deliveredSeq !== from) return false;
        stored = { ...stored, deliveredSeq: to };
        // After the drain's own settling (microtasks of this resolution), the stale read answers.
        setImmediate(letStaleReadAnswer);
        return true;
      },
      recordFailure: async () => undefined,
      giveUp: async () => false,
    } as unknown as WebhookOutbox;
    const jobLock: JobLock = { runExclusive: async (_job, work) => ({ ran: true, value: await work() }) };
    const clock = { now: () => new Date() };
    const dispatcher = new WebhookDispatcher(
      outbox,
      jobLock,
      new WebhookKeys(generateWebhookKeyPem(), undefined, clock.now),
      'd',
      clock,
      { warn() {}, error() {} },
      undefined,
      undefined,
      { ...DEFAULT_DISPATCHER_SETTINGS, pollIntervalMs: 5 },
    );
    closing.push(() => dispatcher.stop());
    dispatcher.start();

    await until(() => reads >= 6, 'passes after the stale read');
    expect(stored.deliveredSeq).toBe(1);
    expect(receiver.deliveries.map((d) => d.headers['webhook-id'])).toEqual(['wv_d_1']);
  });
});
