import { describe, expect, it } from 'vitest';
import { challengeClientKey, rateLimitKey, RateLimitedError, RateLimiter } from '../../adapters/http/rate-limits.js';

describe('the key an address is limited under', () => {
  it('is an IPv4 address itself, and the /64 of an IPv6 address, however it is written', () => {
    expect(rateLimitKey('203.0.113.5')).toBe('203.0.113.5');
    expect(rateLimitKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKey('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(rateLimitKey('::1')).toBe('0:0:0:0::/64');
    expect(rateLimitKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(rateLimitKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(rateLimitKey('unknown')).toBe('unknown');
  });

  it('for a console challenge, is an IPv4 address itself and the /48 of an IPv6 address (every /64 of a tunnel is one client)', () => {
    expect(challengeClientKey('203.0.113.5')).toBe('203.0.113.5');
    expect(challengeClientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1::/48');
    expect(challengeClientKey('2001:db8:1:ffff::9')).toBe('2001:db8:1::/48');
    expect(challengeClientKey('2001:0DB8:0002::1')).toBe('2001:db8:2::/48');
    expect(challengeClientKey('::1')).toBe('0:0:0::/48');
    expect(challengeClientKey('unknown')).toBe('unknown');
  });
});

describe('the rate limiter keeps bounded memory', () => {
  it('forgets the least recently used bucket past maxKeys, so a stream of new addresses cannot grow it', () => {
    const limiter = new RateLimiter(1, () => 0, { maxKeys: 100, scope: 'this client address' });
    for (let i = 0; i < 10_000; i++) limiter.take(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBe(100);
    limiter.take('198.51.100.1');
    expect(() => limiter.take('198.51.100.1')).toThrow(RateLimitedError);
    expect(() => limiter.take('198.51.100.1')).toThrow(/for this client address; retry after 60 s/);
  });
});
