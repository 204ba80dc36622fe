import { escapeControlCharacters } from '../../domain/unicode.js';
import { isWellFormedVaultId } from '../../domain/vault.js';
import type { AuditEvent, AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import { ANONYMOUS, apiKeyActor } from '../audit/audit-actor.js';

/** Why an API key was refused; a closed set, so it can label a metric. */
export const REFUSAL_REASONS = {
  missing_header: 'missing Authorization header',
  malformed_header: 'malformed Authorization header',
  not_bearer: 'not the Bearer scheme',
  malformed_key: 'malformed API key',
  unknown_key: 'unknown API key',
  wrong_secret: 'wrong secret',
  revoked_key: 'revoked API key',
  // The key's own lifecycle: past its expiry, or rotated and its overlap over (or its successor in use).
  expired_key: 'expired API key',
  rotated_key: 'rotated API key',
  other_vault: 'API key of another vault',
  malformed_vault: 'malformed vault id',
  foreign_network: 'API key used from outside its networks',
  // A key row of a governed vault that its signed state does not list (added by a database writer, or not yet approved).
  ungoverned_key: 'API key its vault\'s signed governance does not list',
  // A listed key whose row's secret hash is not the one the signed state lists (the row was rewritten).
  ungoverned_secret: 'API key whose secret is not the one its vault\'s signed governance lists',
} as const;
export type RefusalReason = keyof typeof REFUSAL_REASONS;

/** One refused authentication, as Authenticate reports it. */
export interface RefusedAuth {
  /** The client address the HTTP layer resolved (a plain string; the core knows nothing of HTTP). */
  readonly source: string;
  readonly reason: RefusalReason;
  /** The vault named in the path: arbitrary caller text, looked up (and recorded) only when well-formed. */
  readonly vaultId: string;
  /** The presented key's id when it parsed; never its secret. */
  readonly apiKeyId: string | null;
}

/** Told of every refused authentication; must not block or fail (it runs on the request path). */
export interface RefusedAuthObserver {
  refused(event: RefusedAuth): void;
}

/** Distinct key ids and vault ids remembered per source and interval; more are only counted. */
const MAX_NAMED = 8;
/** The source that stands for every address past `maxSources` in one interval. */
export const OTHER_SOURCES = 'other';

interface SourceTally {
  count: number;
  readonly since: Date;
  readonly reasons: Map<RefusalReason, number>;
  readonly apiKeys: Set<string>;
  readonly vaults: Set<string>;
  /** More vault ids were named than are kept (or text that cannot be a vault id). */
  moreVaults: boolean;
}

/**
 * Refused authentications, summarised: one `auth.refused` audit record per source address and interval
 * with a count, rather than one durable (fsynced, hash-chained) record per request. Anyone can send
 * requests without credentials; recording each one made anonymous traffic as costly as a signature and
 * let it grow the trail without bound. Memory is bounded too: past `maxSources` addresses in one
 * interval, the rest are tallied under the source `other`, so an interval writes at most
 * `maxSources + 1` records. Whoever owns the process calls `flush` periodically and at shutdown.
 */
export class RefusedAuthSummary implements RefusedAuthObserver {
  private tallies = new Map<string, SourceTally>();

  constructor(
    private readonly repository: Pick<VaultStore, 'findVault'>,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
    private readonly maxSources = 1000,
  ) {}

  refused(event: RefusedAuth): void {
    const source = this.tallies.has(event.source) || this.tallies.size < this.maxSources ? event.source : OTHER_SOURCES;
    let tally = this.tallies.get(source);
    if (!tally) {
      tally = { count: 0, since: this.clock.now(), reasons: new Map(), apiKeys: new Set(), vaults: new Set(), moreVaults: false };
      this.tallies.set(source, tally);
    }
    tally.count += 1;
    tally.reasons.set(event.reason, (tally.reasons.get(event.reason) ?? 0) + 1);
    if (event.apiKeyId !== null) remember(tally.apiKeys, event.apiKeyId);
    if (!isWellFormedVaultId(event.vaultId) || !remember(tally.vaults, event.vaultId)) tally.moreVaults = true;
  }

  /**
   * Appends one record per source seen since the last flush and starts a new interval. The actor is the
   * key when all refusals of the source presented one and the same key id, else `anonymous`; the
   * record's vault is the one vault named, when there was one and it exists. The records go to the log
   * together (one batch) and each stands alone: a source whose vault lookup or record fails is reported
   * in `lost`, and every other source's record is still written.
   */
  async flush(): Promise<FlushResult> {
    const tallies = [...this.tallies];
    this.tallies = new Map();
    const until = this.clock.now();
    // Vaults are looked up one source after another (a bounded load on the pool); appended all at once.
    const events: (AuditEvent | { readonly failed: unknown })[] = [];
    for (const [source, t] of tallies) {
      try {
        events.push(await this.eventOf(source, t, until));
      } catch (error) {
        events.push({ failed: error });
      }
    }
    const outcomes = await Promise.allSettled(events.map((e) => ('failed' in e ? Promise.reject(e.failed) : this.auditLog.append(e))));
    const lost: LostSummary[] = [];
    outcomes.forEach((o, i) => {
      if (o.status === 'rejected') lost.push({ source: tallies[i]![0], count: tallies[i]![1].count, error: o.reason });
    });
    return { written: outcomes.length - lost.length, lost };
  }

  private async eventOf(source: string, t: SourceTally, until: Date): Promise<AuditEvent> {
    const vaults: string[] = [];
    for (const id of t.vaults) {
      const vault = await this.repository.findVault(id);
      if (vault) vaults.push(vault.id);
    }
    const keys = [...t.apiKeys];
    const actor = keys.length === 1 && !hasKeylessReason(t) ? apiKeyActor(keys[0]!) : ANONYMOUS;
    return {
      action: 'auth.refused',
      at: until,
      actor,
      vaultId: vaults.length === 1 && !t.moreVaults && t.vaults.size === 1 ? vaults[0]! : null,
      subject: null,
      details: {
        // The HTTP layer gives an address; a library caller may give any text, recorded visibly escaped.
        source: escapeControlCharacters(source),
        count: t.count,
        since: t.since.toISOString(),
        reasons: [...t.reasons].map(([reason, n]) => `${REFUSAL_REASONS[reason]}: ${n}`).join('; '),
        apiKeys: keys.length > 0 ? keys.join(',') : null,
        vaults: vaults.length > 0 ? vaults.join(',') : null,
      },
    };
  }
}

/** A source's summary that could not be recorded: its vault lookup or its append failed. */
export interface LostSummary {
  readonly source: string;
  readonly count: number;
  readonly error: unknown;
}

export interface FlushResult {
  /** Records appended. */
  readonly written: number;
  readonly lost: readonly LostSummary[];
}

/** Adds `value` unless the set is full; false when it could not be kept. */
function remember(set: Set<string>, value: string): boolean {
  if (set.has(value)) return true;
  if (set.size >= MAX_NAMED) return false;
  set.add(value);
  return true;
}

/** Refusals before a key id could be read: the source cannot be said to have used one key only. */
function hasKeylessReason(t: SourceTally): boolean {
  return t.reasons.has('missing_header') || t.reasons.has('malformed_header') || t.reasons.has('not_bearer') || t.reasons.has('malformed_key');
}
