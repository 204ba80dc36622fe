import { describe, expect, it } from 'vitest';
import { approvalView } from '../../src/application/approvals/approval-view.js';
import { GetApproval } from '../../src/application/approvals/get-approval.use-case.js';
import { presentApprovalOf } from '../../src/application/approvals/approval-presenter.js';
import type { Approval } from '../../src/domain/approval.js';
import { diffStates, stateHash, type GovernedState } from '../../src/domain/governance.js';
import { parsePolicyDocument } from '../../src/domain/policy/policy-document.parse.js';
import type { PolicyDocument } from '../../src/domain/policy/policy-document.js';
import { heldApproval, viewContextOf } from '../support/held-approval.js';
import { FixedClock } from '../support/movable-clock.js';
import { inProcessVault } from '../support/in-process-vault.js';
import { MINT_ABI, MINT_TO } from '../support/sign-request.js';

/*
 * The operator's contract names (policy document `contractNames`, docs/policy.md): read and refused as
 * the rest of the document, kept by the older commands, governed as part of the signed state, and shown
 * to approvers beside the address (docs/console.md).
 */

const TREASURY = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const DELEGATE = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const parse = (extra: Record<string, unknown>) => parsePolicyDocument({ version: 2, rules: [{ id: 'all', effect: 'allow' }], limits: [], ...extra }, { chains: ['local', 'sepolia'] });

describe('policy document contractNames', () => {
  it('keeps names by EIP-55 address, trimmed, whatever case the keys are written in', () => {
    const document = parse({ contractNames: { [TREASURY.toLowerCase()]: '  Treasury payouts ', [USDC.toUpperCase().replace('0X', '0x')]: 'USDC', [DELEGATE]: 'Batch delegate 🏦' } });
    expect(document.contractNames).toEqual({ [TREASURY]: 'Treasury payouts', [USDC]: 'USDC', [DELEGATE]: 'Batch delegate 🏦' });
  });

  it('leaves the field out when absent or empty: a document without names is the document it was', () => {
    const without = parse({});
    expect(without).not.toHaveProperty('contractNames');
    expect(parse({ contractNames: {} })).toEqual(without);
  });

  it.each([
    [[], /^contractNames: must be an object/],
    ['Treasury', /^contractNames: must be an object/],
    [{ '0xabc': 'Short' }, /^contractNames\.0xabc: "0xabc" is not a 0x-prefixed 20-byte hex address/],
    [{ [TREASURY.replace('F', 'f')]: 'Bad checksum' }, /^contractNames\.0x5fbDB2315678afecb367f032d93F642f64180aa3: .* invalid EIP-55 checksum/],
    [{ [TREASURY]: 'One', [TREASURY.toLowerCase()]: 'Two' }, /^contractNames\.0x5fbdb2315678afecb367f032d93f642f64180aa3: names contract 0x5FbDB2315678afecb367f032d93F642f64180aa3 a second time/],
    [{ [TREASURY]: 7 }, /^contractNames\.0x5FbDB2315678afecb367f032d93F642f64180aa3: must be a name/],
    [{ [TREASURY]: '   ' }, /^contractNames\.0x5FbDB2315678afecb367f032d93F642f64180aa3: must be a non-empty name/],
    [{ [TREASURY]: 'x'.repeat(65) }, /^contractNames\.0x5FbDB2315678afecb367f032d93F642f64180aa3: 65 characters is more than the limit of 64/],
    [{ [TREASURY]: 'Treasury\npayouts' }, /^contractNames\.0x5FbDB2315678afecb367f032d93F642f64180aa3: must not hold control/],
    // A right-to-left override makes "Treasury ‮stuoyap" read as something it is not.
    [{ [TREASURY]: 'Treasury \u202Estuoyap' }, /^contractNames\.0x5FbDB2315678afecb367f032d93F642f64180aa3: must not hold control, invisible formatting/],
    [{ [TREASURY]: 'Tre\u200Basury' }, /^contractNames\.0x5FbDB2315678afecb367f032d93F642f64180aa3: must not hold control, invisible formatting/],
  ])('refuses %j naming the field', (contractNames, message) => {
    expect(() => parse({ contractNames })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) }));
  });

  it('takes 64 characters and 1000 names, refuses 1001', () => {
    expect(parse({ contractNames: { [TREASURY]: 'x'.repeat(64) } }).contractNames?.[TREASURY]).toHaveLength(64);
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`0x${(i + 1).toString(16).padStart(40, '0')}`, `contract ${i}`]));
    expect(Object.keys(parse({ contractNames: many(1000) }).contractNames ?? {})).toHaveLength(1000);
    expect(() => parse({ contractNames: many(1001) })).toThrow(/^contractNames: 1001 entries is more than the limit of 1000/);
  });
});

describe('contract names are governed with the document', () => {
  const state = (policy: PolicyDocument): GovernedState => ({
    version: 1,
    vault: 'v1',
    previous: null,
    policy,
    governance: { required: 1, approvers: [DELEGATE], delay: '0s' },
    liftedFreezes: 0,
  });
  const plain = parse({});

  it('a document without names hashes as before the field existed; naming a contract changes the hash', () => {
    // The hash of this state as the release before contractNames made it (no field, nothing added).
    expect(stateHash(state(plain))).toBe(stateHash(state({ version: 2, rules: [{ id: 'all', effect: 'allow' }], limits: [] })));
    expect(stateHash(state(parse({ contractNames: {} })))).toBe(stateHash(state(plain)));
    const named = parse({ contractNames: { [TREASURY]: 'Treasury payouts' } });
    const renamed = parse({ contractNames: { [TREASURY]: 'Payroll' } });
    expect(stateHash(state(named))).not.toBe(stateHash(state(plain)));
    expect(stateHash(state(renamed))).not.toBe(stateHash(state(named)));
  });

  it('diffStates shows a name added or changed as a change of the document settings', () => {
    const named = parse({ contractNames: { [TREASURY]: 'Treasury payouts' } });
    expect(diffStates(state(plain), state(named)).policy).toEqual({
      added: [],
      removed: [],
      changed: ['document settings'],
      fields: [{ entry: 'document settings', field: 'contractNames', from: null, to: { [TREASURY]: 'Treasury payouts' } }],
    });
    expect(diffStates(state(named), state(parse({ contractNames: { [TREASURY]: 'Payroll' } }))).policy.changed).toEqual(['document settings']);
    expect(diffStates(state(named), state(parse({ contractNames: { [TREASURY]: 'Treasury payouts' } }))).policy.changed).toEqual([]);
  });
});

describe('policies apply, export and the older commands', () => {
  const world = inProcessVault(new FixedClock(new Date('2026-06-01T00:00:00Z')), 'contract-names');

  it('apply and export round-trip the names; set, rules and limits keep them', async () => {
    const { id: vaultId } = await world.vault.manageVaults.create({ name: 'names' });
    const names = { [TREASURY.toLowerCase()]: 'Treasury payouts' };
    await world.vault.managePolicies.apply(vaultId, { version: 2, rules: [{ id: 'all', effect: 'allow', kinds: ['call'] }], limits: [], contractNames: names });
    expect((await world.vault.managePolicies.export(vaultId))?.contractNames).toEqual({ [TREASURY]: 'Treasury payouts' });
    await world.vault.managePolicies.set(vaultId, { contracts: [TREASURY], messages: true });
    await world.vault.managePolicies.addLimit(vaultId, { each: 'wallet', maxSigns: '5', per: '1h' });
    await world.vault.managePolicies.addRules(vaultId, { function: 'transfer(address to, uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)', arg: 'amount', lte: '100' });
    const after = await world.vault.managePolicies.export(vaultId);
    expect(after?.limits.map((l) => l.id)).toEqual(['l1']);
    expect(after?.contractNames).toEqual({ [TREASURY]: 'Treasury payouts' });
    // Applying the exported document again is the same document.
    await world.vault.managePolicies.apply(vaultId, after);
    expect(await world.vault.managePolicies.export(vaultId)).toEqual(after);
  });
});

describe("the approval view shows the operator's name beside the contract", () => {
  const policy = parse({ contractNames: { [TREASURY]: 'Treasury payouts', [USDC]: 'USDC', [DELEGATE]: 'Batch delegate' } });
  const ctx = viewContextOf;
  const held = (request: Record<string, unknown>): Approval => heldApproval(request);
  const wallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

  it.each([
    ['a call (contract given in lower case)', { chain: 'local', contract: TREASURY.toLowerCase(), sender: wallet, abi: MINT_ABI, args: [MINT_TO, '1'] }, 'Treasury payouts'],
    ['a transaction to', { kind: 'transaction', address: wallet, transaction: { type: 'eip1559', chainId: 31337, nonce: 0, to: TREASURY, value: '1', gas: '21000', maxFeePerGas: '1', maxPriorityFeePerGas: '1' } }, 'Treasury payouts'],
    ['typed data verifyingContract', { kind: 'typed-data', address: wallet, typedData: { domain: { name: 'USD Coin', chainId: 1, verifyingContract: USDC }, types: { Ping: [{ name: 'n', type: 'uint256' }] }, primaryType: 'Ping', message: { n: '1' } } }, 'USDC'],
    ['an EIP-7702 delegate', { kind: 'authorization', address: wallet, authorization: { chainId: 1, address: DELEGATE, nonce: 0 } }, 'Batch delegate'],
  ])('%s', (_, request, name) => {
    const view = approvalView(held(request), ctx(policy));
    expect(view.contract?.name).toBe(name);
    // Without names (or without a policy) the address alone, as before.
    expect(approvalView(held(request), ctx(parse({}))).contract?.name).toBeNull();
    expect(approvalView(held(request), ctx(null)).contract).toEqual({ address: view.contract?.address, name: null });
  });

  it("the API's approval names a call's contract (contractName) only when the document does", async () => {
    const call = held({ chain: 'local', contract: TREASURY.toLowerCase(), sender: wallet, abi: MINT_ABI, args: [MINT_TO, '1'] });
    const namer = async (state: { document: PolicyDocument | null; problem: string | null }) =>
      new GetApproval(undefined, new FixedClock(new Date()), { state: async () => ({ ...state, governed: null }) }).shownPolicy('v1');
    expect(presentApprovalOf(call, await namer({ document: policy, problem: null })).request).toMatchObject({ contract: TREASURY.toLowerCase(), contractName: 'Treasury payouts' });
    expect(presentApprovalOf(call, await namer({ document: parse({}), problem: null })).request).not.toHaveProperty('contractName');
    expect(presentApprovalOf(call).request).not.toHaveProperty('contractName');
    // A governed vault whose state does not verify: its document may be a database writer's, so no names from it.
    expect(presentApprovalOf(call, await namer({ document: policy, problem: 'the state chain is broken' })).request).not.toHaveProperty('contractName');
  });

  it("shows the operator's label of the requester's and each voter's key beside its id (issue 52), null where there is none", () => {
    const request = held({ chain: 'local', contract: TREASURY.toLowerCase(), sender: wallet, abi: MINT_ABI, args: [MINT_TO, '1'] });
    const voted = { ...request, votes: [{ apiKeyId: 'k2', vote: 'approve', at: new Date('2026-06-01T01:00:00Z') }, { apiKeyId: 'k3', vote: 'reject', at: new Date('2026-06-01T02:00:00Z') }] } as unknown as Approval;
    const labels = new Map([['k1', 'payments bot'], ['k2', 'alice']]);
    const view = approvalView(voted, { ...ctx(policy), keyLabel: (id) => labels.get(id) ?? null });
    expect(view.requester).toEqual({ id: 'k1', name: null, label: 'payments bot' });
    expect(view.votes.map((x) => x.approver)).toEqual([{ id: 'k2', name: null, label: 'alice' }, { id: 'k3', name: null, label: null }]);
  });

  it('names no contract the document does not name', () => {
    const view = approvalView(held({ chain: 'local', contract: DELEGATE.replace('e7f1', '0000'), sender: wallet, abi: MINT_ABI, args: [MINT_TO, '1'] }), ctx(policy));
    expect(view.contract?.name).toBeNull();
  });
});
