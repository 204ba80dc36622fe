import { describe, expect, it } from 'vitest';
import { approvalView } from '../../src/application/approvals/approval-view.js';
import { presentApprovalOf } from '../../src/application/approvals/approval-presenter.js';
import { addressNameOf, formatUnits, tokenAmountOf } from '../../src/domain/policy/address-book.js';
import { parsePolicyDocument } from '../../src/domain/policy/policy-document.parse.js';
import { heldApproval, viewContextOf } from '../support/held-approval.js';

/*
 * The policy document's address book (docs/policy.md, "Names and units"): `tokens` and `addressNames` read
 * and refused as `contractNames` are, and every view showing amounts in the token's units and names beside
 * addresses.
 */

const TUSD = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const PAYROLL = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const SPENDER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const parse = (extra: Record<string, unknown>) => parsePolicyDocument({ version: 2, rules: [{ id: 'all', effect: 'allow' }], limits: [], ...extra }, { chains: ['local'] });

describe('policy document tokens and addressNames', () => {
  it('reads them EIP-55, trimmed, and leaves an empty map out', () => {
    const document = parse({ tokens: { [TUSD.toLowerCase()]: { symbol: ' TUSD ', decimals: 6 } }, addressNames: { [PAYROLL.toLowerCase()]: ' Payroll (Acme GmbH) ' } });
    expect(document.tokens).toEqual({ [TUSD]: { symbol: 'TUSD', decimals: 6 } });
    expect(document.addressNames).toEqual({ [PAYROLL]: 'Payroll (Acme GmbH)' });
    const without = parse({});
    expect(parse({ tokens: {}, addressNames: {} })).toEqual(without);
  });

  it.each([
    [{ addressNames: [] }, /^addressNames: must be an object/],
    [{ addressNames: { '0xabc': 'x' } }, /^addressNames\.0xabc: "0xabc" is not a 0x-prefixed 20-byte hex address/],
    [{ addressNames: { [PAYROLL]: 'One', [PAYROLL.toLowerCase()]: 'Two' } }, /names address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 a second time/],
    [{ addressNames: { [PAYROLL]: 'x'.repeat(65) } }, /65 characters is more than the limit of 64/],
    [{ addressNames: { [PAYROLL]: 'Pay\u202Eroll' } }, /must not hold control, invisible formatting/],
    [{ addressNames: { [PAYROLL]: '  ' } }, /must be a non-empty name/],
    [{ tokens: { [TUSD]: 'TUSD' } }, /^tokens\.0x5FbDB2315678afecb367f032d93F642f64180aa3: must be an object/],
    [{ tokens: { [TUSD]: { symbol: 'TUSD' } } }, /tokens\.0x5FbDB2315678afecb367f032d93F642f64180aa3\.decimals: must be a whole number from 0 to 77/],
    [{ tokens: { [TUSD]: { symbol: 'TUSD', decimals: 78 } } }, /decimals: must be a whole number from 0 to 77/],
    [{ tokens: { [TUSD]: { symbol: 'TUSD', decimals: 1.5 } } }, /decimals: must be a whole number/],
    [{ tokens: { [TUSD]: { symbol: 'T USD', decimals: 6 } } }, /symbol: must not hold spaces/],
    [{ tokens: { [TUSD]: { symbol: 'x'.repeat(17), decimals: 6 } } }, /symbol: 17 characters is more than the limit of 16/],
    [{ tokens: { [TUSD]: { symbol: 'TUSD', decimals: 6, name: 'Test USD' } } }, /tokens\.0x5FbDB2315678afecb367f032d93F642f64180aa3\.name: is not a field here/],
  ])('refuses %j naming the field', (extra, message) => {
    expect(() => parse(extra)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) }));
  });

  it('bounds the entries as contractNames', () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`0x${(i + 1).toString(16).padStart(40, '0')}`, `n${i}`]));
    expect(Object.keys(parse({ addressNames: many(1000) }).addressNames ?? {})).toHaveLength(1000);
    expect(() => parse({ addressNames: many(1001) })).toThrow(/^addressNames: 1001 entries is more than the limit of 1000/);
  });
});

describe('amounts in a token\'s units', () => {
  it.each([
    ['15000000000', 6, '15 000'],
    ['1500000', 6, '1.5'],
    ['1', 6, '0.000001'],
    ['0', 6, '0'],
    ['1234567', 0, '1 234 567'],
    ['-2500000', 6, '-2.5'],
    [(2n ** 256n - 1n).toString(), 18, '115 792 089 237 316 195 423 570 985 008 687 907 853 269 984 665 640 564 039 457.584007913129639935'],
  ])('%s with %i decimals reads %s (every digit kept)', (base, decimals, units) => {
    expect(formatUnits(base, decimals)).toBe(units);
  });

  it('is null for what is no integer, and for a token the document does not name', () => {
    expect(formatUnits('1e6', 6)).toBeNull();
    const document = parse({ tokens: { [TUSD]: { symbol: 'TUSD', decimals: 6 } } });
    expect(tokenAmountOf(document, TUSD.toLowerCase(), '15000000000')).toEqual({ symbol: 'TUSD', decimals: 6, units: '15 000', text: '15 000 TUSD (15000000000)' });
    expect(tokenAmountOf(document, PAYROLL, '1')).toBeNull();
  });

  it('names an address by addressNames, else contractNames', () => {
    const document = parse({ addressNames: { [PAYROLL]: 'Payroll (Acme GmbH)' }, contractNames: { [TUSD]: 'Test USD' } });
    expect(addressNameOf(document, PAYROLL.toLowerCase())).toBe('Payroll (Acme GmbH)');
    expect(addressNameOf(document, TUSD)).toBe('Test USD');
    expect(addressNameOf(document, SPENDER)).toBeNull();
    expect(addressNameOf(document, 'not an address')).toBeNull();
  });
});

describe('every view shows the units and names', () => {
  const policy = parse({
    rules: [{ id: 'all', effect: 'allow', function: 'transfer(address to, uint256 amount)' }],
    tokens: { [TUSD]: { symbol: 'TUSD', decimals: 6 } },
    addressNames: { [PAYROLL]: 'Payroll (Acme GmbH)' },
  });
  const transfer = heldApproval(
    {
      chain: 'local',
      contract: TUSD,
      sender: PAYROLL,
      abi: { type: 'function', name: 'transfer', inputs: [{ name: 'a', type: 'address' }, { name: 'b', type: 'uint256' }, { name: 'sig', type: 'tuple', components: [{ name: 'r', type: 'bytes32' }, { name: 's', type: 'bytes32' }, { name: 'n', type: 'bytes32' }, { name: 'v', type: 'uint8' }] }] },
      args: [PAYROLL, '15000000000'],
    },
    { simulation: JSON.stringify({ chain: 'local', method: 'eth_simulateV1', tokenOutflow: { [TUSD]: '15000000000', [SPENDER]: '7' } }) },
  );

  it('the API and the CLI presentation', () => {
    const shown = presentApprovalOf(transfer, policy);
    // No rule names this Sign call's function (with its signature parameter): its arguments go by position.
    expect('arguments' in shown.request && shown.request.arguments).toEqual([
      { name: 'args[0]', type: 'address', value: PAYROLL, addressName: 'Payroll (Acme GmbH)' },
      { name: 'args[1]', type: 'uint256', value: '15000000000', tokenAmount: { symbol: 'TUSD', decimals: 6, units: '15 000', text: '15 000 TUSD (15000000000)' } },
    ]);
    expect(shown.simulation?.tokenOutflowUnits).toEqual({ [TUSD]: { symbol: 'TUSD', decimals: 6, units: '15 000', text: '15 000 TUSD (15000000000)' } });
  });

  it("the console's view", () => {
    const view = approvalView(transfer, viewContextOf(policy));
    expect(view.function?.args.map((a) => [a.addressName, a.tokenAmount?.text])).toEqual([
      ['Payroll (Acme GmbH)', undefined],
      [undefined, '15 000 TUSD (15000000000)'],
    ]);
    expect(view.simulation?.tokenOutflowUnits?.[TUSD]?.text).toBe('15 000 TUSD (15000000000)');
  });

  it("a held transaction's calldata, as the console decodes it", () => {
    const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    const data = `0xa9059cbb${PAYROLL.slice(2).toLowerCase().padStart(64, '0')}${(15000000000n).toString(16).padStart(64, '0')}`;
    const held = heldApproval({ kind: 'transaction', address: wallet, transaction: { type: 'eip1559', chainId: 31337, nonce: 0, to: TUSD, value: '0', data, gas: '60000', maxFeePerGas: '1', maxPriorityFeePerGas: '1' } });
    // The API and the CLI: the transaction as held, and its token call read beside it.
    const shown = presentApprovalOf(held, policy);
    expect('tokenCall' in shown.request && shown.request.tokenCall).toEqual({
      token: TUSD,
      symbol: 'TUSD',
      function: 'transfer',
      arguments: [
        { name: 'to', type: 'address', value: PAYROLL, addressName: 'Payroll (Acme GmbH)' },
        { name: 'amount', type: 'uint256', value: '15000000000', tokenAmount: { symbol: 'TUSD', decimals: 6, units: '15 000', text: '15 000 TUSD (15000000000)' } },
      ],
    });
    expect(presentApprovalOf(held, parse({})).request).not.toHaveProperty('tokenCall');
    // Calldata that is not exactly the function's arguments is not read as it.
    const longer = heldApproval({ kind: 'transaction', address: wallet, transaction: { type: 'eip1559', chainId: 31337, nonce: 0, to: TUSD, value: '0', data: `${data}00`, gas: '60000', maxFeePerGas: '1', maxPriorityFeePerGas: '1' } });
    expect(presentApprovalOf(longer, policy).request).not.toHaveProperty('tokenCall');
    const view = approvalView(held, viewContextOf(policy));
    expect(view.function?.args).toEqual([
      { name: 'to', type: 'address', value: PAYROLL, addressName: 'Payroll (Acme GmbH)' },
      { name: 'amount', type: 'uint256', value: '15000000000', tokenAmount: { symbol: 'TUSD', decimals: 6, units: '15 000', text: '15 000 TUSD (15000000000)' } },
    ]);
  });

  it('shows nothing beside a value the document says nothing of', () => {
    const shown = presentApprovalOf(transfer, parse({}));
    expect('arguments' in shown.request && shown.request.arguments.map((a) => Object.keys(a))).toEqual([
      ['name', 'type', 'value'],
      ['name', 'type', 'value'],
    ]);
    expect(shown.simulation).not.toHaveProperty('tokenOutflowUnits');
  });
});
