import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { VerifyAuthSignature } from '../../src/application/access/verify-auth-signature.use-case.js';
import { createAuthSignature, verifyAuthSignature } from '../../src/domain/auth-signature.js';
import { InMemoryReplayGuard } from '../../adapters/replay/in-memory.replay-guard.js';
import { InMemoryAuditLog } from '../support/in-memory.persistence.js';
import { FixedClock } from '../support/movable-clock.js';
import { ALL_ROLES } from '../../src/domain/api-key-access.js';

const SECRET = 'a-shared-secret-of-at-least-32-characters';
const NOW = new Date('2026-11-22T12:00:00.000Z');
const body = Buffer.from('{"chain":"local"}');

/** RFC 4648 base32 written independently of the code under test. */
function base32(bytes: Buffer): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

function clientHeader(at: Date, nonce = Buffer.alloc(32, 7), secret = SECRET, payload = body): string {
  const ts = Buffer.alloc(8);
  ts.writeBigUInt64BE(BigInt(at.getTime()));
  const hash = createHash('sha256').update(payload).update(nonce).update(ts).update(secret).digest();
  return [base32(nonce), base32(ts), base32(hash)].join('.');
}

describe('X-Vault-Auth-Signature format', () => {
  it('matches what an independent client computes, byte for byte', () => {
    const nonce = Buffer.alloc(32, 7);
    expect(createAuthSignature(body, SECRET, NOW, nonce)).toBe(clientHeader(NOW, nonce));
    expect(clientHeader(NOW).split('.').map((p) => p.length)).toEqual([56, 16, 56]);
  });

  it('accepts a fresh signature and reports its nonce', () => {
    const v = verifyAuthSignature(clientHeader(NOW), body, SECRET, NOW);
    expect(v).toEqual({ ok: true, nonceHex: '07'.repeat(32), timestamp: NOW });
  });

  it('accepts 2 minutes of skew either way, not a millisecond more', () => {
    for (const skew of [-120_000, 120_000]) {
      expect(verifyAuthSignature(clientHeader(new Date(NOW.getTime() + skew)), body, SECRET, NOW).ok).toBe(true);
    }
    for (const skew of [-120_001, 120_001]) {
      const v = verifyAuthSignature(clientHeader(new Date(NOW.getTime() + skew)), body, SECRET, NOW);
      expect(v).toEqual({ ok: false, reason: expect.stringMatching(/stale/) });
    }
  });

  it.each([
    ['another secret', clientHeader(NOW, undefined, `${SECRET}x`), /does not match/],
    ['another body', clientHeader(NOW, undefined, SECRET, Buffer.from('{}')), /does not match/],
    ['upper case', clientHeader(NOW).toUpperCase(), /malformed/],
    ['two parts', clientHeader(NOW).split('.').slice(0, 2).join('.'), /malformed/],
    ['a short nonce', [base32(Buffer.alloc(16)), ...clientHeader(NOW).split('.').slice(1)].join('.'), /malformed/],
    ['garbage', 'x.y.z', /malformed/],
  ])('refuses %s', (_label, header, reason) => {
    expect(verifyAuthSignature(header, body, SECRET, NOW)).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });
});

describe('VerifyAuthSignature', () => {
  const clock = new FixedClock(NOW);
  const principal = { apiKeyId: '0123456789abcdef', vaultId: 'v1', roles: ALL_ROLES };
  const guard = () => new InMemoryReplayGuard(1000, () => clock.now().getTime());

  it('requires the header when a secret is set and refuses a replayed nonce', async () => {
    const verify = new VerifyAuthSignature(SECRET, guard(), clock, new InMemoryAuditLog());
    await expect(verify.execute(undefined, body, principal)).rejects.toThrow(/header is required/);
    const header = clientHeader(NOW);
    await expect(verify.execute(header, body, principal)).resolves.toBeUndefined();
    await expect(verify.execute(header, body, principal)).rejects.toThrow(/already used/);
  });

  it('refuses the header when no secret is configured, and lets requests without it through', async () => {
    const verify = new VerifyAuthSignature(undefined, guard(), clock, new InMemoryAuditLog());
    await expect(verify.execute(undefined, body, principal)).resolves.toBeUndefined();
    await expect(verify.execute(clientHeader(NOW), body, principal)).rejects.toThrow(/must not be sent/);
  });

  it('the replay guard fails closed when full', async () => {
    const g = new InMemoryReplayGuard(2, () => NOW.getTime());
    const later = new Date(NOW.getTime() + 60_000);
    expect(await g.firstUse('a', later)).toBe(true);
    expect(await g.firstUse('b', later)).toBe(true);
    expect(await g.firstUse('c', later)).toBe(false);
    expect(await g.firstUse('a', later)).toBe(false);
  });
});
