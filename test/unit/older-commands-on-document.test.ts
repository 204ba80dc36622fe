import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/application/access/principal.js';
import type { PolicyDocument } from '../../src/domain/policy/policy-document.js';
import { FixedClock } from '../support/movable-clock.js';
import { CONTRACT, SENDER, SIGNER_ABI } from '../support/sign-fixtures.js';
import { inProcessVault } from '../support/in-process-vault.js';

/**
 * The older commands (`policies set|rules|limits|approvals`) on a vault whose policy was applied as a
 * document: each edits the document in its own id namespace and keeps every other rule and limit, and
 * what the document then decides is asked of the vault (the dry run, real signs), not read off its JSON.
 */
const ROUTER = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const OTHER = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';
const UNIQ = `0x${'ab'.repeat(32)}`;
const GO = 'go(uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)';

const clock = new FixedClock(new Date('2026-06-01T00:00:00Z'));
const world = inProcessVault(clock, 'older-commands');

/** Calls of CONTRACT up to 1 000 000 (an operator's rule, function with names), payouts to ROUTER, a deny and a limit of the operator's own. */
const DOCUMENT = {
  version: 2,
  rules: [
    { id: 'calls', effect: 'allow', kinds: ['call'], contracts: [CONTRACT] },
    { id: 'payouts', effect: 'allow', kinds: ['transaction'], chains: ['1'], contracts: [ROUTER], selectors: ['0x'] },
    { id: 'no-huge', effect: 'deny', kinds: ['call'], function: GO, where: [{ arg: 'amount', gt: '1000000' }] },
  ],
  limits: [{ id: 'daily', maxSigns: 100, per: '1d' }],
  uniqs: { [CONTRACT]: UNIQ },
};

async function aVault(document: unknown = DOCUMENT) {
  const created = await world.vault.manageVaults.create({ name: 'older-commands' });
  const principal: Principal = await world.vault.authenticate.execute((await world.vault.manageVaults.createApiKey(created.id)).apiKey, created.id);
  const { address } = await world.vault.createWallet.execute({ principal, name: 'w' });
  await world.vault.managePolicies.apply(created.id, document);
  const call = (amount: string, contract = CONTRACT) => ({ chain: 'local', contract, sender: SENDER, uniq: UNIQ, signer: address, abi: SIGNER_ABI, args: [amount] });
  const tx = (to: string, nonce = 0) => ({ type: 'eip1559', chainId: 1, nonce, to, value: '0', gas: 21000, maxFeePerGas: '1000000000', maxPriorityFeePerGas: '1' });
  const dry = async (kind: string, request: unknown) => {
    const { decision, rule } = await world.vault.evaluatePolicy.execute({ principal, kind, wallet: address, request });
    return `${decision} ${rule}`;
  };
  const exported = async () => (await world.vault.managePolicies.export(created.id))!;
  const ids = async () => (await exported()).rules.map((r) => r.id);
  return { vaultId: created.id, principal, address, call, tx, dry, exported, ids };
}

describe('policies rules on a document', () => {
  it('add appends deny rules r<n> (the same rule once), remove takes those of a function or argument, clear every r<n>; the operator\'s rules stay', async () => {
    const v = await aVault();
    const added = await world.vault.managePolicies.addRules(v.vaultId, { function: GO, arg: 'amount', lte: '1000' });
    expect((added as PolicyDocument).version).toBe(2);
    expect(await v.dry('call', v.call('1001'))).toBe('deny r1');
    expect(await v.dry('call', v.call('1000'))).toBe('allow calls');
    await world.vault.managePolicies.addRules(v.vaultId, { function: GO, arg: 'amount', lte: '1000' });
    await world.vault.managePolicies.addRules(v.vaultId, { function: '0x' + 'ab'.repeat(4), arg: '0', eq: '1' });
    await world.vault.managePolicies.addRules(v.vaultId, { function: GO, arg: 'amount', gte: '10' });
    expect(await v.ids()).toEqual(['calls', 'payouts', 'no-huge', 'r1', 'r2', 'r3']);
    expect(await v.dry('call', v.call('5'))).toBe('deny r3');
    // The argument named as the rule was added or by position: the rules on it go, those of another function stay.
    await expect(world.vault.managePolicies.removeRules(v.vaultId, { function: 'stop(uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)', arg: 'amount' })).resolves.toMatchObject({ removed: 0 });
    await expect(world.vault.managePolicies.removeRules(v.vaultId, { function: 'go(uint256 x, (bytes32,bytes32,bytes32,uint8) sig)', arg: 'x' })).resolves.toMatchObject({ removed: 2 });
    expect(await v.ids()).toEqual(['calls', 'payouts', 'no-huge', 'r2']);
    expect(await v.dry('call', v.call('5000'))).toBe('allow calls');
    // The operator's deny was never the commands' to remove.
    expect(await v.dry('call', v.call('2000000'))).toBe('deny no-huge');
    await world.vault.managePolicies.addRules(v.vaultId, { function: GO, arg: 'amount', lte: '1000' });
    expect(await v.ids()).toEqual(['calls', 'payouts', 'no-huge', 'r2', 'r3']);
    await expect(world.vault.managePolicies.removeRules(v.vaultId, {})).resolves.toMatchObject({ removed: 2 });
    expect(await v.ids()).toEqual(['calls', 'payouts', 'no-huge']);
    expect(await v.dry('call', v.call('5000'))).toBe('allow calls');
    expect(await v.dry('call', v.call('2000000'))).toBe('deny no-huge');
    await expect(world.vault.managePolicies.removeRules(v.vaultId, {})).resolves.toMatchObject({ removed: 0 });
  });

  it('each change is on record as an applied document is', async () => {
    const v = await aVault();
    await world.vault.managePolicies.addRules(v.vaultId, { function: GO, arg: 'amount', lte: '1000' });
    const changes = (await world.vault.listAuditRecords.execute({ vaultId: v.vaultId, limit: 1000 })).filter((r) => r.action === 'policy.changed');
    expect(changes.at(-1)!.details).toMatchObject({ policy: 'applied', documentHash: expect.stringMatching(/^[0-9a-f]{64}$/), rules: 'calls:allow,payouts:allow,no-huge:deny,r1:deny', limits: 'daily' });
  });
});

describe('policies limits on a document', () => {
  it('add appends l<n> (replacing one of the same target and window, whose count goes on), remove by target, clear every l<n>', async () => {
    const v = await aVault();
    const sign = (nonce: number) => world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: v.tx(ROUTER, nonce) });
    await world.vault.managePolicies.addLimit(v.vaultId, { each: 'wallet', maxSigns: '1', per: '1h' });
    await expect(sign(0)).resolves.toHaveProperty('hash');
    await expect(sign(1)).rejects.toMatchObject({ code: 'SIGN_LIMIT_REACHED', message: expect.stringMatching(/^limit l1: at most 1 sign per 1h/) });
    await world.vault.managePolicies.addLimit(v.vaultId, { each: 'wallet', maxSigns: '2', per: '1h' });
    expect((await v.exported()).limits.map((l) => `${l.id}:${l.maxSigns}`)).toEqual(['daily:100', 'l1:2']);
    await expect(sign(1)).resolves.toHaveProperty('hash');
    await expect(sign(2)).rejects.toMatchObject({ code: 'SIGN_LIMIT_REACHED' });
    await world.vault.managePolicies.addLimit(v.vaultId, { contract: ROUTER, maxSigns: '5', per: '1d' });
    await expect(world.vault.managePolicies.removeLimits(v.vaultId, { each: 'wallet' })).resolves.toMatchObject({ removed: 1 });
    expect((await v.exported()).limits.map((l) => l.id)).toEqual(['daily', 'l2']);
    await expect(sign(2)).resolves.toHaveProperty('hash');
    await expect(world.vault.managePolicies.removeLimits(v.vaultId, null)).resolves.toMatchObject({ removed: 1 });
    expect((await v.exported()).limits.map((l) => l.id)).toEqual(['daily']);
  });
});

describe('policies approvals on a document', () => {
  it('add holds only what an allow rule allows (any allow rule, its function however written); remove takes a<n> and a<n>.*; clear every one', async () => {
    const v = await aVault({
      ...DOCUMENT,
      rules: [...DOCUMENT.rules.filter((r) => r.id !== 'calls'), { id: 'go-small', effect: 'allow', kinds: ['call'], contracts: [CONTRACT], function: GO, where: [{ arg: 'amount', lte: '1000000' }] }],
    });
    const { rule } = (await world.vault.managePolicies.addApprovalRule(v.vaultId, { required: '2', function: 'go(uint256 x, (bytes32,bytes32,bytes32,uint8) sig)', arg: 'x', gt: '100' })) as { rule: { id: string } };
    expect(rule.id).toBe('a1');
    expect(await v.dry('call', v.call('101'))).toBe('hold a1.go-small');
    expect(await v.dry('call', v.call('100'))).toBe('allow go-small');
    // Not allowed, so not held: a hold alone would make it signable with a quorum.
    expect(await v.dry('call', v.call('101', OTHER))).toBe('deny null');
    expect(await v.dry('call', v.call('2000000'))).toBe('deny no-huge');
    await world.vault.managePolicies.addApprovalRule(v.vaultId, { required: '3' });
    expect(await v.dry('transaction', v.tx(ROUTER))).toBe('hold a2.payouts');
    expect(await v.dry('transaction', v.tx(OTHER))).toBe('deny null');
    await expect(world.vault.managePolicies.removeApprovalRules(v.vaultId, 'a1')).resolves.toMatchObject({ removed: 1 });
    expect((await v.ids()).filter((id) => id.startsWith('a'))).toEqual(['a2.payouts', 'a2.go-small']);
    expect(await v.dry('call', v.call('100'))).toBe('hold a2.go-small');
    await expect(world.vault.managePolicies.removeApprovalRules(v.vaultId, null)).resolves.toMatchObject({ removed: 1 });
    expect(await v.ids()).toEqual(['payouts', 'no-huge', 'go-small']);
    expect((await v.exported()).approvalRules).toBeUndefined();
    expect(await v.dry('call', v.call('101'))).toBe('allow go-small');
    expect(await v.dry('transaction', v.tx(ROUTER))).toBe('allow payouts');
  });
});

describe('policies set on a document', () => {
  it('replaces the list rules and pins, keeps the rest, and holds each approval rule within exactly what the new lists allow', async () => {
    const v = await aVault();
    await world.vault.managePolicies.addRules(v.vaultId, { function: GO, arg: 'amount', lte: '5000' });
    await world.vault.managePolicies.addApprovalRule(v.vaultId, { required: '2', contracts: [CONTRACT] });
    await world.vault.managePolicies.addApprovalRule(v.vaultId, { required: '3' });
    expect(await v.dry('call', v.call('1'))).toBe('hold a2');
    // New lists: calls of OTHER only, and transactions to OTHER.
    const set = await world.vault.managePolicies.set(v.vaultId, { contracts: [OTHER], contractUniqs: [`${OTHER}=${UNIQ}`], txChainIds: ['1'], txTo: [OTHER] });
    expect((set as PolicyDocument).uniqs).toEqual({ [OTHER]: UNIQ });
    expect(await v.ids()).toEqual(['payouts', 'no-huge', 'r1', 'calls', 'transactions', 'a2.payouts', 'a2', 'a2.transactions']);
    expect(await v.dry('call', v.call('1'))).toBe('deny null');
    expect(await v.dry('call', v.call('1', OTHER))).toBe('hold a2');
    expect(await v.dry('call', v.call('6000', OTHER))).toBe('deny r1');
    expect(await v.dry('transaction', v.tx(OTHER))).toBe('hold a2.transactions');
    expect(await v.dry('transaction', v.tx(ROUTER))).toBe('hold a2.payouts');
    expect(await v.dry('message', { message: 'hi' })).toBe('deny null');
    // a1 held nothing of OTHER; listed again, CONTRACT is held by it as it was asked (its own filters were kept).
    await world.vault.managePolicies.removeApprovalRules(v.vaultId, 'a2');
    expect(await v.dry('call', v.call('1', OTHER))).toBe('allow calls');
    await world.vault.managePolicies.set(v.vaultId, { contracts: [CONTRACT, OTHER], contractUniqs: [`${CONTRACT}=${UNIQ}`, `${OTHER}=${UNIQ}`] });
    expect(await v.dry('call', v.call('1'))).toBe('hold a1');
    expect(await v.dry('call', v.call('1', OTHER))).toBe('allow calls');
    expect(await v.dry('transaction', v.tx(OTHER))).toBe('deny null');
    expect((await v.exported()).limits.map((l) => l.id)).toEqual(['daily']);
  });

  it('clear still removes the whole policy', async () => {
    const v = await aVault();
    await expect(world.vault.managePolicies.clear(v.vaultId)).resolves.toEqual({ cleared: true });
    expect(await world.vault.managePolicies.show(v.vaultId)).toBeNull();
  });
});
