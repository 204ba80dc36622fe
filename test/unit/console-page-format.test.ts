import { describe, expect, it } from 'vitest';
// The console page's own modules (browser JavaScript, no DOM at import): what it shows for amounts and changes.
import { formatEther, relative } from '../../adapters/console-page/format.js';
import { diffLines } from '../../adapters/console-page/views.js';

describe("the approvers' console's formatting", () => {
  it('shows wei in the native unit with every digit kept, never through a float', () => {
    expect(formatEther('0')).toBe('0');
    expect(formatEther('1')).toBe('0.000000000000000001');
    expect(formatEther('1500000000000000000')).toBe('1.5');
    expect(formatEther('1234567000000000000000000')).toBe('1,234,567');
    // 2^256 - 1: far past a double's 53 bits.
    expect(formatEther((2n ** 256n - 1n).toString())).toBe('115,792,089,237,316,195,423,570,985,008,687,907,853,269,984,665,640,564,039,457.584007913129639935');
    // Not a decimal integer: shown as given rather than guessed at.
    expect(formatEther('0x10')).toBe('0x10');
  });

  it('says times relative to now', () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    expect(relative('2026-11-27T11:57:00Z', now)).toBe('3 minutes ago');
    expect(relative('2026-11-28T11:00:00Z', now)).toBe('in 23 hours');
    expect(relative('2026-11-27T12:00:20Z', now)).toBe('in less than a minute');
    expect(relative('not a time', now)).toBe('not a time');
  });

  it("lists a proposal's diff line by line, leaving out what does not change", () => {
    const diff = {
      policy: { added: ['rule r4'], removed: [], changed: ['limit daily'] },
      governance: { approversAdded: [], approversRemoved: ['0xabc'], required: { from: 2, to: 3 } },
      apiKeys: { added: ['k12'], removed: [], changed: [], nowGoverned: true },
    };
    expect(diffLines(diff)).toEqual([
      'policy · added: rule r4',
      'policy · changed: limit daily',
      'governance · approversRemoved: 0xabc',
      'governance · required: 2 → 3',
      'apiKeys · added: k12',
      'apiKeys · nowGoverned: true',
    ]);
    expect(diffLines({ policy: { added: [], removed: [], changed: [] } })).toEqual([]);
  });
});
