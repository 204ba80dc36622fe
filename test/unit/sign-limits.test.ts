import { id } from 'ethers';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { describeSignLimit, describeWindow, parseSignLimit, parseWindow, withSignLimit, type SignLimit } from '../../src/domain/sign-limits.js';
import { InMemorySignCounter } from '../support/in-memory.persistence.js';
import { MovableClock } from '../support/movable-clock.js';
import { signCountDemands } from '../support/legacy-decisions.js';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
// Computed by ethers, independently of the code under test.
const TRANSFER_TEXT = 'transfer(address,uint256,(bytes32,bytes32,bytes32,uint8))';
const TRANSFER = id(TRANSFER_TEXT).slice(0, 10);
const facts = { vaultId: 'v1', wallet: WALLET, contract: CONTRACT, selector: TRANSFER };

describe('sign limits as an operator writes them', () => {
  it('reads windows in s, m, h, d and writes them back in their largest whole unit', () => {
    expect(parseWindow('90s')).toBe(90_000);
    expect(parseWindow('1h')).toBe(3_600_000);
    expect(parseWindow('31d')).toBe(31 * 86_400_000);
    expect(describeWindow(90_000)).toBe('90s');
    expect(describeWindow(120_000)).toBe('2m');
    expect(describeWindow(86_400_000)).toBe('1d');
  });

  it.each(['', '1', 'h', '0h', '1.5h', '-1m', '1w', '32d'])('refuses the window %j', (text) => {
    expect(() => parseWindow(text)).toThrow(DomainError);
  });

  it('reads each scope, one target, and a function by signature text as its selector', () => {
    expect(parseSignLimit({ each: 'wallet', maxSigns: '100', per: '1h' })).toEqual({ scope: 'wallet', maxSigns: 100, windowMs: 3_600_000 });
    expect(parseSignLimit({ wallet: WALLET.toLowerCase(), maxSigns: 5, per: '1m' })).toEqual({ scope: 'wallet', target: WALLET, maxSigns: 5, windowMs: 60_000 });
    expect(parseSignLimit({ function: TRANSFER_TEXT, maxSigns: 5, per: '1m' }).target).toBe(TRANSFER);
    expect(parseSignLimit({ function: TRANSFER.toUpperCase().replace('0X', '0x'), maxSigns: 5, per: '1m' }).target).toBe(TRANSFER);
  });

  it.each<[string, Parameters<typeof parseSignLimit>[0], RegExp]>([
    ['no target', { maxSigns: 1, per: '1h' }, /exactly one of/],
    ['two targets', { each: 'wallet', contract: CONTRACT, maxSigns: 1, per: '1h' }, /exactly one of/],
    ['an unknown scope', { each: 'sender', maxSigns: 1, per: '1h' }, /each: "sender" is not one of wallet, contract, function/],
    ['zero signs', { each: 'wallet', maxSigns: '0', per: '1h' }, /maxSigns/],
    ['a fraction', { each: 'wallet', maxSigns: '1.5', per: '1h' }, /maxSigns/],
    ['a bad address', { wallet: '0x1234', maxSigns: 1, per: '1h' }, /wallet/],
  ])('refuses %s', (_case, input, message) => {
    expect(() => parseSignLimit(input)).toThrow(message);
  });

  it('describes a limit, and replaces one of the same target and window', () => {
    const hourly = parseSignLimit({ each: 'wallet', maxSigns: 100, per: '1h' });
    expect(describeSignLimit(hourly)).toBe('at most 100 signs per 1h for each wallet');
    expect(describeSignLimit(parseSignLimit({ contract: CONTRACT, maxSigns: 3, per: '10m' }))).toBe(`at most 3 signs per 10m for contract ${CONTRACT}`);
    const lower = { ...hourly, maxSigns: 10 };
    const daily = { ...hourly, windowMs: 86_400_000 };
    expect(withSignLimit(withSignLimit([hourly], daily), lower)).toEqual([daily, lower]);
  });

  it('holds at most 64 limits; replacing one of them is still allowed', () => {
    const full = Array.from({ length: 64 }, (_, i) => parseSignLimit({ each: 'wallet', maxSigns: 1, per: `${i + 1}m` }));
    expect(() => withSignLimit(full, parseSignLimit({ each: 'contract', maxSigns: 1, per: '1h' }))).toThrow(/at most 64 limits/);
    expect(withSignLimit(full, { ...full[0]!, maxSigns: 2 })).toHaveLength(64);
  });
});

describe('what a sign is counted under', () => {
  const limit = (l: Partial<SignLimit>): SignLimit => ({ scope: 'wallet', maxSigns: 10, windowMs: 60_000, ...l });

  it('one count per applying limit, keyed by vault, scope, value and window; targets that do not match count nothing', () => {
    const demands = signCountDemands(
      [limit({}), limit({ scope: 'contract', target: CONTRACT, maxSigns: 3 }), limit({ scope: 'function', target: '0x12345678' }), limit({ scope: 'function', windowMs: 3_600_000 })],
      facts,
    );
    expect(demands.map((d) => [d.key, d.max])).toEqual([
      [`v1/contract/${CONTRACT}/60000`, 3],
      [`v1/function/${TRANSFER}/3600000`, 10],
      [`v1/wallet/${WALLET}/60000`, 10],
    ]);
    expect(demands[0]!.label).toBe(`at most 3 signs per 1m for contract ${CONTRACT}`);
  });

  it('two limits on one count: the stricter binds, and the label says which', () => {
    const [demand, ...rest] = signCountDemands([limit({ maxSigns: 10 }), limit({ target: WALLET, maxSigns: 4 })], facts);
    expect(rest).toEqual([]);
    expect(demand).toMatchObject({ max: 4, label: `at most 4 signs per 1m for wallet ${WALLET}` });
  });

  it('a rolling window over a movable clock: full at max, room again exactly as the oldest sign leaves', async () => {
    const clock = new MovableClock();
    clock.freeze();
    const counter = new InMemorySignCounter();
    const demands = signCountDemands([limit({ maxSigns: 2, windowMs: 60_000 })], facts);
    expect((await counter.take(demands, clock.now())).allowed).toBe(true);
    clock.advance(20_000);
    expect((await counter.take(demands, clock.now())).allowed).toBe(true);
    clock.advance(10_000);
    expect(await counter.take(demands, clock.now())).toEqual({ allowed: false, retryAfterMs: 30_000, refusedBy: demands[0]!.key });
    clock.advance(30_000);
    expect((await counter.take(demands, clock.now())).allowed).toBe(true);
    // The second sign (at 20 s) now holds the window full until 80 s.
    expect((await counter.take(demands, clock.now())).retryAfterMs).toBe(20_000);
  });
});
