import { describe, expect, it } from 'vitest';
import { FIELD_PAGE, FIELD_PAGE_CHARS, typedDataFieldPage } from '../../src/application/approvals/approval-view.js';
import { uniqBinding } from '../../src/domain/policy/uniq-binding.js';

/*
 * The pieces behind "approvers see everything that is signed" (docs/console.md): what the policy says of
 * the uniq a Sign carries, and typed data's fields by pages that stay bounded whatever the request.
 */

const REWARD = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const PAYROLL = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const UNIQ_A = `0x${'ab'.repeat(32)}`;
const UNIQ_B = `0x${'cd'.repeat(32)}`;

describe('uniqBinding: which contract the uniq a Sign carries is pinned for', () => {
  const policy = { uniqs: { [REWARD]: UNIQ_A }, contractNames: { [REWARD]: 'Reward token', [PAYROLL]: 'Payroll vault' } };

  it('no warning when the uniq is the one pinned for the named contract (its address in any case)', () => {
    expect(uniqBinding(policy, REWARD.toLowerCase(), UNIQ_A.toUpperCase().replace('0X', '0x'))).toEqual({ pinnedFor: [{ address: REWARD, name: 'Reward token' }], contractPin: UNIQ_A, warning: null });
  });

  it('warns, naming both, when the uniq is pinned for another contract', () => {
    expect(uniqBinding(policy, PAYROLL, UNIQ_A)).toEqual({
      pinnedFor: [{ address: REWARD, name: 'Reward token' }],
      contractPin: null,
      warning: `This uniq is the one the policy pins for Reward token (${REWARD}), not for Payroll vault (${PAYROLL}): the signature is valid on that contract, whatever contract the request names.`,
    });
  });

  it('warns when the named contract is pinned to another uniq, and when the uniq is pinned to none', () => {
    expect(uniqBinding(policy, REWARD, UNIQ_B).warning).toBe(
      `The policy pins another uniq (${UNIQ_A}) for Reward token (${REWARD}): this signature is not valid there, but on any contract whose uniq() is ${UNIQ_B} and whose signer() is the signing wallet.`,
    );
    expect(uniqBinding(policy, PAYROLL, UNIQ_B).warning).toBe(
      `The policy pins this uniq to no contract: the signature is valid on every contract whose uniq() is ${UNIQ_B} and whose signer() is the signing wallet, not only on Payroll vault (${PAYROLL}).`,
    );
    // No policy (or one that does not verify): nothing is pinned, and nothing is named.
    expect(uniqBinding(null, PAYROLL, UNIQ_A)).toMatchObject({ pinnedFor: [], contractPin: null, warning: expect.stringContaining(`not only on ${PAYROLL}.`) });
  });
});

describe('typedDataFieldPage: typed data by bounded pages', () => {
  const list = (n: number) => ({ types: { List: [{ name: 'items', type: 'uint256[]' }] }, primaryType: 'List', message: { items: Array.from({ length: n }, (_, i) => String(i)) } });

  it('pages of FIELD_PAGE fields, each from its offset, with the total; past the end, none', () => {
    const td = list(FIELD_PAGE * 2 + 5);
    const pages = [0, FIELD_PAGE, FIELD_PAGE * 2, FIELD_PAGE * 2 + 5].map((offset) => typedDataFieldPage(td, offset));
    expect(pages.map((p) => [p.offset, p.total, p.fields.length])).toEqual([
      [0, FIELD_PAGE * 2 + 5, FIELD_PAGE],
      [FIELD_PAGE, FIELD_PAGE * 2 + 5, FIELD_PAGE],
      [FIELD_PAGE * 2, FIELD_PAGE * 2 + 5, 5],
      [FIELD_PAGE * 2 + 5, FIELD_PAGE * 2 + 5, 0],
    ]);
    expect(pages.flatMap((p) => p.fields.map((f) => f.path))).toEqual(Array.from({ length: FIELD_PAGE * 2 + 5 }, (_, i) => `items[${i}]`));
    expect(pages[2]!.fields.at(-1)).toEqual({ path: `items[${FIELD_PAGE * 2 + 4}]`, type: 'uint256', value: String(FIELD_PAGE * 2 + 4) });
  });

  it("a page stays bounded where every path repeats long parents' names: a field alone past the budget, never more", () => {
    // Seven nested structs of 10,000-character names over 500 numbers: 70,000 characters of path per number,
    // 35 million in all for a request of about 100 KB.
    const name = (i: number) => String.fromCharCode(97 + i).repeat(10_000);
    const types: Record<string, { name: string; type: string }[]> = {};
    for (let i = 0; i < 7; i++) types[`S${i}`] = [{ name: name(i), type: i === 6 ? 'uint8[]' : `S${i + 1}` }];
    let message: unknown = Array.from({ length: 500 }, () => '1');
    for (let i = 6; i >= 0; i--) message = { [name(i)]: message };
    const first = typedDataFieldPage({ types, primaryType: 'S0', message }, 0);
    expect([first.total, first.fields.length]).toEqual([500, 1]);
    expect(first.fields[0]!.path).toHaveLength(7 * 10_000 + 6 + '[0]'.length);
    const later = typedDataFieldPage({ types, primaryType: 'S0', message }, 499);
    expect(later.fields.map((f) => f.path.slice(-5))).toEqual(['[499]']);
  });

  it('fields that fit share a page up to FIELD_PAGE_CHARS', () => {
    const td = { types: { Notes: [{ name: 'notes', type: 'string[]' }] }, primaryType: 'Notes', message: { notes: Array.from({ length: 40 }, () => 'x'.repeat(10_000)) } };
    const page = typedDataFieldPage(td, 0);
    const size = (f: { path: string; type: string; value: unknown }) => f.path.length + f.type.length + JSON.stringify(f.value).length;
    expect(page.fields.length).toBe(Math.floor(FIELD_PAGE_CHARS / size({ path: 'notes[0]', type: 'string', value: 'x'.repeat(10_000) })));
    expect(page.fields.reduce((n, f) => n + size(f), 0)).toBeLessThanOrEqual(FIELD_PAGE_CHARS);
  });

  it('follows no type the message names that its types do not own (an inherited name is a value, not a struct)', () => {
    const page = typedDataFieldPage({ types: { T: [{ name: 'x', type: 'constructor' }] }, primaryType: 'T', message: { x: { a: 1 } } }, 0);
    expect(page.fields).toEqual([{ path: 'x', type: 'constructor', value: { a: 1 } }]);
  });
});
