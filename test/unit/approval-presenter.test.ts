import { describe, expect, it } from 'vitest';
import { presentApprovalOf } from '../../src/application/approvals/approval-presenter.js';
import { approvalView } from '../../src/application/approvals/approval-view.js';
import type { Approval } from '../../src/domain/approval.js';
import { parsePolicyDocument } from '../../src/domain/policy/policy-document.parse.js';
import type { PolicyDocument } from '../../src/domain/policy/policy-document.js';
import { heldApproval, viewContextOf } from '../support/held-approval.js';
import { MINT_ABI, MINT_TO } from '../support/sign-request.js';

/*
 * One approval presenter: the API's (and the CLI's) presentation of a held call names its arguments as the
 * console's view does, by the operator's function, never by the requester's ABI item.
 */

const SIG = '(bytes32,bytes32,bytes32,uint8)';
const document = (rules: readonly Record<string, unknown>[]): PolicyDocument => parsePolicyDocument({ version: 2, rules, limits: [] }, { chains: ['local'] });
/** A held mint, its ABI's parameters named by the requester as it pleases. */
const held = (ruleId: string): Approval =>
  heldApproval(
    {
      chain: 'local',
      contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      sender: MINT_TO,
      abi: { ...MINT_ABI, inputs: [{ name: 'yourOwnTreasury', type: 'address' }, { name: 'harmlessFee', type: 'uint256' }, { ...MINT_ABI.inputs[2], name: 'notASignature' }] },
      args: [MINT_TO, '1'],
    },
    { ruleId },
  );

const presented = (a: Approval, policy: PolicyDocument | null) => {
  const request = presentApprovalOf(a, policy).request as { arguments: readonly { name: string }[] };
  return request.arguments.map((arg) => arg.name);
};
const viewed = (a: Approval, policy: PolicyDocument | null) => approvalView(a, viewContextOf(policy)).function!.args.map((arg) => arg.name);

describe('the approval presenter', () => {
  const holding = { id: 'big', effect: { hold: { required: 2 } }, kinds: ['call'], function: `mint(address to, uint256 amount, ${SIG} sig)` };
  const other = { id: 'other', effect: 'allow', kinds: ['call'], function: `mint(address recipient, uint256 value, ${SIG} proof)` };
  const unnamed = { id: 'unnamed', effect: { hold: { required: 2 } }, kinds: ['call'], function: `mint(address, uint256, ${SIG})` };

  it.each([
    ["the holding rule's function", [other, holding], 'big', ['to', 'amount']],
    ['else the first rule with the selector (the holding rule names no function)', [{ id: 'any', effect: { hold: { required: 2 } }, kinds: ['call'] }, other, holding], 'any', ['recipient', 'value']],
    ['by position where the holding rule\'s function names none', [unnamed, other], 'unnamed', ['args[0]', 'args[1]']],
    ['by position without a rule of that function', [{ id: 'all', effect: 'allow' }], 'all', ['args[0]', 'args[1]']],
  ])('names a call\'s arguments as the console does: %s', (_, rules, ruleId, names) => {
    const policy = document(rules);
    const approval = held(ruleId);
    expect(presented(approval, policy)).toEqual(names);
    expect(viewed(approval, policy)).toEqual(names);
  });

  it("never by the requester's names; by position where no policy was read", () => {
    const approval = held('big');
    expect(presented(approval, null)).toEqual(['args[0]', 'args[1]']);
    expect((presentApprovalOf(approval).request as { arguments: readonly { name: string }[] }).arguments.map((a) => a.name)).toEqual(['args[0]', 'args[1]']);
    expect(JSON.stringify(presentApprovalOf(approval, document([holding])))).not.toMatch(/yourOwnTreasury|harmlessFee|notASignature/);
  });

  it("shows why a pending request with its quorum is not released, in the API's presentation and the console's view alike; nothing once decided", () => {
    const blockedBy = { reason: 'limit', code: 'SIGN_LIMIT_REACHED', message: 'limit daily: 1 ETH per 1d', at: new Date('2026-06-01T10:00:00Z') } as const;
    const shown = { reason: 'limit', code: 'SIGN_LIMIT_REACHED', message: 'limit daily: 1 ETH per 1d', at: '2026-06-01T10:00:00.000Z' };
    const pending: Approval = { ...held('all'), approvals: 1, blockedBy };
    expect(presentApprovalOf(pending).blockedBy).toEqual(shown);
    expect(approvalView(pending, viewContextOf(null)).blockedBy).toEqual(shown);
    expect(presentApprovalOf(held('all')).blockedBy).toBeNull();
    expect(presentApprovalOf({ ...pending, status: 'rejected' }).blockedBy).toBeNull();
  });
});
