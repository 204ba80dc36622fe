import type { AuditAction, AuditRecord } from '../../src/ports/audit-log.port.js';
import type { Clock } from '../../src/ports/clock.port.js';
import type { JobLock } from '../../src/ports/job-lock.port.js';
import type { AuditWatch } from '../../src/ports/persistence.port.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEndpoint, type WebhookOutbox } from '../../src/ports/webhook-outbox.port.js';
import { signWebhook, type WebhookKeys } from './webhook-signing-key.js';

/** Where the dispatcher reports (the vault's logger). */
interface Logger {
  warn(o: object, m?: string): void;
  error(o: object, m?: string): void;
}

/** What a delivery attempt came to, as the metrics count it. */
export type WebhookOutcome = 'delivered' | 'failed' | 'undeliverable';

export interface WebhookMetrics {
  observeWebhookDelivery(outcome: WebhookOutcome): void;
  /** After each pass: endpoints with an event waiting, and the age of the oldest such event (seconds). */
  observeWebhookBacklog(endpoints: number, oldestSeconds: number): void;
}

export interface DispatcherSettings {
  /** How often the outbox is read (ms). */
  readonly pollIntervalMs: number;
  /** Bound on one delivery: connect, send, answer (ms). */
  readonly timeoutMs: number;
  /** How long an event is retried from its first failure before it is recorded undeliverable (ms). */
  readonly retryWindowMs: number;
  /** The first retry's delay; each next one doubles, up to `maxBackoffMs`. */
  readonly firstBackoffMs: number;
  readonly maxBackoffMs: number;
  /** How long one instance keeps delivering before it releases the job lock and takes it again (ms). */
  readonly leaseMs: number;
  /**
   * How long an instance that found the lock held waits before asking again (ms; at least the poll
   * interval): each ask opens a database connection (PostgreSQL's job lock), so the instances that do
   * not deliver ask less often than the one that does reads the outbox.
   */
  readonly standbyMs: number;
}

export const DEFAULT_DISPATCHER_SETTINGS: DispatcherSettings = {
  pollIntervalMs: 1000,
  timeoutMs: 10_000,
  retryWindowMs: 24 * 3600_000,
  firstBackoffMs: 1000,
  maxBackoffMs: 10 * 60_000,
  leaseMs: 60_000,
  standbyMs: 5000,
};

/** The audit actions delivered as webhooks. */
const DELIVERED: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);
/** What the dispatcher hears of while an endpoint may want this process's events: those, and endpoint changes. */
const PROMPTING: ReadonlySet<AuditAction> = new Set([...WEBHOOK_EVENT_TYPES, 'webhook.changed']);
/**
 * What it hears of otherwise (no endpoint at its last read of the outbox, or another instance delivers):
 * endpoint changes only, so that a sign's record costs its write a look-up and nothing more.
 */
const CHANGES: ReadonlySet<AuditAction> = new Set(['webhook.changed']);

/** The job lock name: with several instances on one database, one of them delivers. */
export const WEBHOOK_JOB = 'webhooks';
/** At most this many audit records are looked through per query for an endpoint's next event. */
const SCAN_STEP = 10_000;
/** Passes prompted by events appended here start at most this often (ms), however fast events come. */
const NUDGE_SPACING_MS = 25;
/** An idle endpoint's cursor moves on once this many records went by since it, or this long passed. */
const IDLE_MOVE_RECORDS = 1000;
const IDLE_MOVE_MS = 10_000;
/** Failures of the database (not of receivers) are logged at most this often while they last. */
const ERROR_LOG_MS = 30_000;
/** At most this much of a receiver's answer is read (and discarded). */
const MAX_ANSWER_BYTES = 4096;

/** `webhook-id`: the same for every attempt at an event, unique in the deployment. */
export const webhookId = (deploymentId: string, seq: number): string => `wv_${deploymentId}_${seq}`;

/** The JSON a receiver gets for an audit record (never key material: audit records carry none). */
export function webhookPayload(id: string, record: AuditRecord): string {
  return JSON.stringify({
    id,
    type: record.action,
    timestamp: record.at.toISOString(),
    vaultId: record.vaultId,
    // The record's own fields last: no detail can stand in for them.
    data: Object.assign({ subject: record.subject, actor: record.actor }, record.details, { subject: record.subject, actor: record.actor, seq: record.seq }),
  });
}

/**
 * Delivers each endpoint's events from the audit chain, one at a time and in `seq` order, under the job
 * lock (one instance at a time on a shared database). A 2xx moves the endpoint's cursor, durably; anything
 * else (a timeout, a redirect, which is not followed, any other status) is retried with exponential
 * backoff for 24 h from the event's first failure, after which the event is recorded undeliverable and the
 * cursor moves on. A process killed between a send and the cursor's write sends the event again: at
 * least once, receivers dedupe by `webhook-id`.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private leading: Promise<void> | undefined;
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Drains settled so far (a counter), and its value when each endpoint's last drain settled. */
  private drainsSettled = 0;
  private readonly settledAt = new Map<string, number>();
  /** When each idle endpoint's cursor was last moved on (Date.now()). */
  private readonly idleMoved = new Map<string, number>();
  private stopping = false;
  /** While another instance holds the lock: not asked again before this (Date.now()). */
  private standbyUntil = 0;
  private leaseOver = false;
  private wake: (() => void) | undefined;
  /** An event was appended here since the current pass started. */
  private nudged = false;
  /** An endpoint was added or removed here since the current pass started. */
  private endpointsChanged = false;
  /** The actions this process's audit records are watched for (watchAudit), and the unsubscribe. */
  private hearing: ReadonlySet<AuditAction> | undefined;
  private unwatch: (() => void) | undefined;
  private readonly aborts = new AbortController();
  private lastErrorLogged = 0;

  constructor(
    private readonly outbox: WebhookOutbox,
    private readonly jobLock: JobLock,
    private readonly keys: WebhookKeys,
    private readonly deploymentId: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly metrics: WebhookMetrics | undefined,
    /** Persistence.watchAudit: the records this process commits prompt a pass at once (absent: the polls only). */
    private readonly watchAudit: AuditWatch | undefined,
    private readonly settings: DispatcherSettings = DEFAULT_DISPATCHER_SETTINGS,
    /**
     * Whether an endpoint row is served: on a governed vault only the endpoints its signed state lists
     * (docs/governance.md); absent: every row. One that is not keeps its cursor, so it gets what it missed
     * once the state lists it.
     */
    private readonly served?: (endpoint: WebhookEndpoint) => Promise<boolean>,
  ) {}

  start(): void {
    // Until the first read of the outbox tells whether any endpoint exists: every delivered action.
    this.hear(PROMPTING);
    this.poll();
    this.timer = setInterval(() => this.poll(), this.settings.pollIntervalMs);
    this.timer.unref();
  }

  /**
   * This process committed an audit record of an action it hears of (watchAudit): a nudge when its action
   * is delivered; an endpoint change makes it hear of every delivered action from here on, until a read
   * of the outbox finds no endpoint.
   */
  private readonly noticed = (action: AuditAction): void => {
    if (DELIVERED.has(action)) return this.nudge();
    this.endpointsChanged = true;
    this.hear(PROMPTING);
  };

  /** Watches this process's audit records for `actions` (once per change of them; never once stopping). */
  private hear(actions: ReadonlySet<AuditAction>): void {
    if (this.stopping || this.watchAudit === undefined || actions === this.hearing) return;
    this.unwatch?.();
    this.hearing = actions;
    this.unwatch = this.watchAudit(this.noticed, actions);
  }

  /**
   * An event to deliver was just appended by this process: the outbox is read again soon (at most every
   * NUDGE_SPACING_MS) rather than at the next interval. Where another instance delivers, nothing happens.
   */
  nudge(): void {
    if (!this.leading) return this.poll();
    this.nudged = true;
    this.wake?.();
  }

  /** Stops polling, abandons deliveries in flight (they are sent again later) and releases the lock. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unwatch?.();
    clearInterval(this.timer);
    this.aborts.abort();
    this.wake?.();
    await this.leading;
  }

  /** Takes the job lock unless this process holds it already; another instance holding it: nothing to do. */
  private poll(): void {
    if (this.stopping || this.leading || Date.now() < this.standbyUntil) return;
    this.leading = this.jobLock
      .runExclusive(WEBHOOK_JOB, () => this.lead())
      .then(
        (outcome) => {
          if (outcome.ran) return;
          this.standbyUntil = Date.now() + Math.max(this.settings.standbyMs, this.settings.pollIntervalMs);
          // Another instance delivers (and reads this one's events at its polls): this one asks for the
          // lock again at its own polls, not at each event it writes.
          this.hear(CHANGES);
        },
        (error: unknown) => {
          // The lock could not be asked for (the database is away): ask again later, not every poll.
          this.standbyUntil = Date.now() + Math.max(this.settings.standbyMs, this.settings.pollIntervalMs);
          this.hear(CHANGES);
          this.failed(error, 'webhook delivery could not take its job lock; will retry');
        },
      )
      .finally(() => {
        this.leading = undefined;
      });
  }

  /** While holding the lock: a pass over the outbox each interval, until the lease ends or the vault stops. */
  private async lead(): Promise<void> {
    const until = Date.now() + this.settings.leaseMs;
    try {
      while (!this.stopping && Date.now() < until) {
        const started = Date.now();
        this.nudged = false;
        await this.pass().catch((error: unknown) => this.failed(error, 'reading the webhook outbox failed; will retry'));
        await this.pause(started);
      }
    } finally {
      // The lock is released only once no delivery of this instance is under way.
      this.leaseOver = true;
      await Promise.all(this.inFlight.values());
      this.leaseOver = false;
    }
  }

  /** Logs a failure of the machinery (the database away, ...), at most once every ERROR_LOG_MS. */
  private failed(error: unknown, message: string, endpoint?: string): void {
    if (Date.now() - this.lastErrorLogged < ERROR_LOG_MS) return;
    this.lastErrorLogged = Date.now();
    this.logger.error({ err: describe(error), ...(endpoint === undefined ? {} : { endpoint }) }, message);
  }

  /** Until the next pass: the poll interval, or NUDGE_SPACING_MS after the last pass started when nudged; at once when stopping. */
  private pause(passStarted: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout;
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      this.wake = () => {
        if (this.stopping) return done();
        clearTimeout(timer);
        timer = setTimeout(done, Math.max(0, passStarted + NUDGE_SPACING_MS - Date.now()));
        this.wake = () => {
          if (this.stopping) done();
        };
      };
      timer = setTimeout(done, this.settings.pollIntervalMs);
      if (this.nudged || this.stopping) this.wake();
    });
  }

  /** Starts a drain for each endpoint that is behind and due, and not draining already. */
  private async pass(): Promise<void> {
    this.endpointsChanged = false;
    const readStarted = this.drainsSettled;
    const { head, endpoints, anyEndpoint } = await this.outbox.behind();
    // No endpoint, and none added here since the read began: this process's signs prompt nothing.
    this.hear(anyEndpoint !== false || this.endpointsChanged ? PROMPTING : CHANGES);
    const now = this.clock.now().getTime();
    let waiting = 0;
    let oldest = 0;
    for (const endpoint of endpoints) {
      if (this.served !== undefined && !(await this.served(endpoint))) continue;
      if (endpoint.firstFailure !== null) {
        waiting++;
        oldest = Math.max(oldest, (now - endpoint.firstFailure.getTime()) / 1000);
      }
      if (this.inFlight.has(endpoint.id)) continue;
      // Its drain settled while the read was under way: the read may describe the endpoint as it was
      // before that drain's deliveries (on PostgreSQL the read and the cursor's write take different
      // connections), and a drain from there would send a delivered event again. The next pass reads anew.
      if ((this.settledAt.get(endpoint.id) ?? -1) > readStarted) continue;
      if (endpoint.nextAttempt !== null && endpoint.nextAttempt.getTime() > now) continue;
      const work = endpoint.nextSeq !== null ? this.drain(endpoint, head) : this.passIdle(endpoint, head);
      const drain = work
        .catch((error: unknown) => this.failed(error, 'webhook delivery failed; will retry', endpoint.id))
        .finally(() => {
          this.inFlight.delete(endpoint.id);
          this.settledAt.set(endpoint.id, ++this.drainsSettled);
        });
      this.inFlight.set(endpoint.id, drain);
    }
    this.metrics?.observeWebhookBacklog(waiting, oldest);
  }

  /**
   * Nothing for the endpoint up to `head`: its cursor moves there, once enough records went by or a while
   * passed since it last moved, so that the next look reads only what came after (a write per pass for
   * every idle endpoint would cost more than the read it saves).
   */
  private async passIdle(endpoint: WebhookEndpoint, head: number): Promise<void> {
    const last = this.idleMoved.get(endpoint.id) ?? 0;
    if (head - endpoint.deliveredSeq < IDLE_MOVE_RECORDS && Date.now() - last < IDLE_MOVE_MS) return;
    this.idleMoved.set(endpoint.id, Date.now());
    await this.outbox.advance(endpoint.id, endpoint.deliveredSeq, head);
  }

  /** The endpoint's events up to `head`, one after another, until one fails or there are none. */
  private async drain(start: WebhookEndpoint, head: number): Promise<void> {
    let endpoint = start;
    while (!this.stopping && !this.leaseOver && endpoint.deliveredSeq < head) {
      const upTo = Math.min(head, endpoint.deliveredSeq + SCAN_STEP);
      const event = await this.outbox.nextEvent(endpoint, upTo);
      if (event === null) {
        // Nothing for this endpoint in the records looked through: its cursor skips them.
        if (!(await this.outbox.advance(endpoint.id, endpoint.deliveredSeq, upTo))) return;
        endpoint = { ...endpoint, deliveredSeq: upTo };
        continue;
      }
      // Asked again before each send: a removal in force stops a drain under way (a cached read, no query).
      if (this.served !== undefined && !(await this.served(endpoint))) return;
      const failure = await this.send(endpoint, event);
      if (failure === 'aborted') return;
      if (failure === null) {
        this.metrics?.observeWebhookDelivery('delivered');
        if (!(await this.outbox.advance(endpoint.id, endpoint.deliveredSeq, event.seq))) return;
        endpoint = movedPast(endpoint, event.seq);
        continue;
      }
      const now = this.clock.now();
      const firstFailure = endpoint.firstFailure ?? now;
      if (now.getTime() - firstFailure.getTime() >= this.settings.retryWindowMs) {
        this.metrics?.observeWebhookDelivery('undeliverable');
        this.logger.warn(
          { endpoint: endpoint.id, vault: endpoint.vaultId, seq: event.seq, type: event.action, attempts: endpoint.attempts + 1, lastError: failure },
          'webhook event undeliverable after 24 h of attempts; recorded (wallet-vault webhooks undeliverable), moving on',
        );
        if (!(await this.outbox.giveUp({ ...endpoint, firstFailure }, event, now, failure))) return;
        endpoint = movedPast(endpoint, event.seq);
        continue;
      }
      this.metrics?.observeWebhookDelivery('failed');
      const attempts = endpoint.attempts + 1;
      const delay = Math.min(this.settings.firstBackoffMs * 2 ** Math.min(attempts - 1, 30), this.settings.maxBackoffMs);
      if (endpoint.firstFailure === null) {
        this.logger.warn({ endpoint: endpoint.id, vault: endpoint.vaultId, seq: event.seq, error: failure }, 'webhook delivery failed; retrying with backoff');
      }
      await this.outbox.recordFailure(endpoint.id, endpoint.deliveredSeq, { attempts, nextAttempt: new Date(now.getTime() + delay), firstFailure, lastError: failure });
      return;
    }
  }

  /** One signed POST; null on a 2xx, else why not (or 'aborted' when the vault is stopping). */
  private async send(endpoint: WebhookEndpoint, event: AuditRecord): Promise<string | null | 'aborted'> {
    const key = await this.keys.key();
    const id = webhookId(this.deploymentId, event.seq);
    const body = webhookPayload(id, event);
    const timestamp = Math.floor(this.clock.now().getTime() / 1000);
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    try {
      const answer = await fetch(endpoint.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.any([timeout, this.aborts.signal]),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'wallet-vault-webhooks',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(key, id, timestamp, body),
        },
        body,
      });
      await discard(answer);
      if (answer.status >= 200 && answer.status < 300) return null;
      return answer.status >= 300 && answer.status < 400 ? `HTTP ${answer.status} (redirects are not followed)` : `HTTP ${answer.status}`;
    } catch (error) {
      if (this.aborts.signal.aborted) return 'aborted';
      if (timeout.aborted) return `no answer within ${this.settings.timeoutMs} ms`;
      return `connection failed: ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}`;
    }
  }
}

/** The endpoint once its cursor moved past `seq` (delivered, or given up on): no failure pending any more. */
const movedPast = (endpoint: WebhookEndpoint, seq: number): WebhookEndpoint => ({
  ...endpoint,
  deliveredSeq: seq,
  attempts: 0,
  nextAttempt: null,
  firstFailure: null,
  lastError: null,
});

/** Reads at most MAX_ANSWER_BYTES of the answer, then drops the rest. */
async function discard(answer: Response): Promise<void> {
  if (!answer.body) return;
  const reader = answer.body.getReader();
  let read = 0;
  try {
    while (read < MAX_ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

const describe = (e: unknown) => (e instanceof Error ? { name: e.name, message: e.message } : { message: String(e) });
