import { describe, expect, it } from 'vitest';
import { challengeRefusal, clientRefusal, DEFAULT_CHALLENGE_BOUNDS } from '../../src/application/console/sign-in-challenges.js';
import { isDomainError } from '../../src/domain/errors.js';
import type { OutstandingChallenges } from '../../src/ports/console-store.port.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const inS = (s: number) => new Date(NOW.getTime() + s * 1000);
const outstanding = (all: number, client: number): OutstandingChallenges => ({ all, allFirstExpires: all > 0 ? inS(10) : null, client, clientFirstExpires: client > 0 ? inS(200) : null });
const bounds = { perClient: 4, outstanding: 40 };

describe('how many console challenges may be outstanding', () => {
  it('defaults to 8 a client and 10 000 in all, the second half one to a client', () => {
    expect(DEFAULT_CHALLENGE_BOUNDS).toEqual({ perClient: 8, outstanding: 10_000 });
  });

  it('a client under its bound, below half of all, gets one', () => {
    expect(challengeRefusal(outstanding(0, 0), bounds, NOW)).toBeNull();
    expect(challengeRefusal(outstanding(19, 3), bounds, NOW)).toBeNull();
  });

  it('a client at its bound is refused (429, RATE_LIMITED) until its first expires, naming the setting', () => {
    const refused = challengeRefusal(outstanding(4, 4), bounds, NOW)!;
    expect(isDomainError(refused) && refused.code).toBe('RATE_LIMITED');
    expect(refused.retryAfterSeconds).toBe(200);
    expect(refused.message).toMatch(/^console: this client holds 4 unused challenges \(sign-in or enrolment\), the most one may \(VAULT_CONSOLE_CHALLENGES_PER_CLIENT\); use one; retry after 200 s$/);
  });

  it('from half of all on, a client holding any gets no other; one holding none does, up to the bound of all', () => {
    expect(challengeRefusal(outstanding(20, 1), bounds, NOW)?.message).toMatch(/the rest go one to a client: this one holds one already/);
    expect(challengeRefusal(outstanding(20, 0), bounds, NOW)).toBeNull();
    expect(challengeRefusal(outstanding(39, 0), bounds, NOW)).toBeNull();
    const full = challengeRefusal(outstanding(40, 0), bounds, NOW)!;
    expect([full.message, full.retryAfterSeconds]).toEqual(['console: 40 challenges are outstanding, the most the vault holds (VAULT_CONSOLE_CHALLENGES); retry after 10 s', 10]);
  });

  it("a client's own count alone refuses what its bound refuses, and nothing else (the read before the lock)", () => {
    expect(clientRefusal(3, inS(5), bounds, NOW)).toBeNull();
    expect(clientRefusal(4, inS(5), bounds, NOW)?.retryAfterSeconds).toBe(5);
    expect(clientRefusal(4, inS(5), bounds, NOW)?.message).toBe(challengeRefusal({ all: 4, allFirstExpires: inS(5), client: 4, clientFirstExpires: inS(5) }, bounds, NOW)?.message);
  });

  it('never says to retry in less than a second', () => {
    expect(challengeRefusal({ all: 40, allFirstExpires: NOW, client: 0, clientFirstExpires: null }, bounds, NOW)?.retryAfterSeconds).toBe(1);
  });
});
