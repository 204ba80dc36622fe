import { EthersStandardPayloads } from '../../adapters/ethereum/ethers.standard-payloads.js';
import type { ApprovalViewContext } from '../../src/application/approvals/approval-view.js';
import type { Approval } from '../../src/domain/approval.js';
import type { PolicyDocument } from '../../src/domain/policy/policy-document.js';

/** A pending approval of vault v1 holding `request` (as stored: JSON), held by rule `all` unless `overrides` say otherwise. */
export const heldApproval = (request: Record<string, unknown>, overrides: Partial<Approval> = {}): Approval =>
  ({
    id: '00000000-0000-4000-8000-000000000001',
    vaultId: 'v1',
    status: 'pending',
    ruleId: 'all',
    required: 1,
    group: null,
    approvals: 0,
    requester: 'k1',
    request: JSON.stringify(request),
    requestHash: 'ab'.repeat(32),
    idempotencyKey: null,
    chain: 'local',
    contract: '',
    sender: '',
    selector: '',
    functionSignature: '',
    created: new Date('2026-06-01T00:00:00Z'),
    expires: new Date('2026-06-02T00:00:00Z'),
    decided: null,
    votes: [],
    result: null,
    simulation: null,
    ...overrides,
  }) as unknown as Approval;

/** What the console's view is made with, knowing no names but the policy's (chain ids all 31337). */
export const viewContextOf = (policy: PolicyDocument | null): ApprovalViewContext => ({
  policy,
  walletName: () => null,
  chainId: () => '31337',
  chainName: () => null,
  approverName: () => null,
  keyLabel: () => null,
  hasPasskey: () => false,
  payloads: new EthersStandardPayloads(),
});
