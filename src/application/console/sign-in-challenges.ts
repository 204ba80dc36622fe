import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { OutstandingChallenges } from '../../ports/console-store.port.js';

/*
 * How many console challenges may be outstanding at once (docs/console.md, "Sign-in challenges"). Anyone
 * may ask for one without a credential, and each is a row for five minutes, so they are bounded twice: a
 * client (an address; an IPv6 client's /48, as the HTTP layer names it) holds at most `perClient`, and all
 * together are at most `outstanding`, of which the second half goes one per client: once half are taken, a
 * client holding any gets no other. A flood from one client is refused at its `perClient + 1`th, and
 * filling the cap takes outstanding / 2 / perClient + outstanding / 2 clients holding theirs at once
 * (5 625 with the defaults) where it took one client before; approvers elsewhere sign in meanwhile.
 */

export interface ChallengeBounds {
  /** Challenges one client may hold (VAULT_CONSOLE_CHALLENGES_PER_CLIENT). */
  readonly perClient: number;
  /** Challenges outstanding at once, whoever asked (VAULT_CONSOLE_CHALLENGES); the second half one per client. */
  readonly outstanding: number;
}

export const DEFAULT_CHALLENGE_BOUNDS: ChallengeBounds = Object.freeze({ perClient: 8, outstanding: 10_000 });

/** The 429 of a bound, with the seconds until `first` expires (at least one). */
function refused(why: string, first: Date | null, now: Date): DomainError {
  const retryAfterSeconds = Math.max(1, Math.ceil(((first ?? now).getTime() - now.getTime()) / 1000));
  return new DomainError(ErrorCode.RATE_LIMITED, `console: ${why}; retry after ${retryAfterSeconds} s`, { retryAfterSeconds });
}

/**
 * Null when a client holding `held` (the first expiring at `firstExpires`) is under its own bound; else its
 * 429. What the client's own count refuses needs no count of everyone's (nor the lock that count takes).
 */
export function clientRefusal(held: number, firstExpires: Date | null, bounds: ChallengeBounds, now: Date): DomainError | null {
  return held >= bounds.perClient
    ? refused(`this client holds ${held} unused challenges (sign-in or enrolment), the most one may (VAULT_CONSOLE_CHALLENGES_PER_CLIENT); use one`, firstExpires, now)
    : null;
}

/** Null when one more challenge may go to the client; else the 429 saying which bound and when to come back. */
export function challengeRefusal(o: OutstandingChallenges, bounds: ChallengeBounds, now: Date): DomainError | null {
  const reserved = Math.floor(bounds.outstanding / 2);
  const own = clientRefusal(o.client, o.clientFirstExpires, bounds, now);
  if (own !== null) return own;
  if (o.all >= bounds.outstanding) {
    return refused(`${o.all} challenges are outstanding, the most the vault holds (VAULT_CONSOLE_CHALLENGES)`, o.allFirstExpires, now);
  }
  if (o.client > 0 && o.all >= bounds.outstanding - reserved) {
    return refused(`half of the vault's ${bounds.outstanding} challenges are taken, and the rest go one to a client: this one holds one already; use it`, o.clientFirstExpires, now);
  }
  return null;
}
