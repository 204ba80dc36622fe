import { AbiCoder, Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/application/access/principal.js';
import type { SignPolicyInput } from '../../src/domain/sign-policy.js';
import { FixedClock } from '../support/movable-clock.js';
import { CONTRACT, SENDER, SIGNER_ABI } from '../support/sign-fixtures.js';
import { inProcessVault } from '../support/in-process-vault.js';

/**
 * Issue 34's findings, each tried as an attacker would against main before it, now through the one
 * policy: every route's request is decided by the same document, and what got through before is refused
 * (or held, or counted) on each route.
 */
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const ROUTER = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const ATTACKER = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';
const MAX = (1n << 256n) - 1n;
const erc20 = new Interface(['function approve(address spender, uint256 amount)', 'function transfer(address to, uint256 amount)']);
const UNIQ = `0x${'ab'.repeat(32)}`;

const clock = new FixedClock(new Date('2026-06-01T00:00:00Z'));
const world = inProcessVault(clock, 'one-policy');

/** A vault of its own with one wallet; `policy` a document (applied) or the older commands' lists (set). */
async function aVault(policy?: unknown): Promise<{ vaultId: string; principal: Principal; address: string }> {
  const created = await world.vault.manageVaults.create({ name: 'one-policy' });
  const principal = await world.vault.authenticate.execute((await world.vault.manageVaults.createApiKey(created.id)).apiKey, created.id);
  const { address } = await world.vault.createWallet.execute({ principal, name: 'w' });
  if (policy !== undefined) {
    if ((policy as { version?: number }).version === 2) await world.vault.managePolicies.apply(created.id, policy);
    else await world.vault.managePolicies.set(created.id, policy as SignPolicyInput);
  }
  return { vaultId: created.id, principal, address };
}

const tx = (o: Record<string, unknown>) => ({ type: 'eip1559', chainId: 1, nonce: 0, value: '0', gas: 100000, maxFeePerGas: '1000000000', maxPriorityFeePerGas: '1', ...o });
const transferWithAuthorization = (to: string) => ({
  domain: { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: USDC },
  types: {
    TransferWithAuthorization: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'validAfter', type: 'uint256' },
      { name: 'validBefore', type: 'uint256' },
      { name: 'nonce', type: 'bytes32' },
    ],
  },
  primaryType: 'TransferWithAuthorization',
  message: { from: SENDER, to, value: '1000000', validAfter: '0', validBefore: '99999999999', nonce: `0x${'01'.repeat(32)}` },
});

describe('finding 1 (high): the fee is bounded on every route', () => {
  it('a document rule without maxFee allows a fee up to the default cap only; one with maxFee allows up to it', async () => {
    const v = await aVault({ version: 2, rules: [{ id: 'pay', effect: 'allow', kinds: ['transaction'], chains: ['1'], contracts: [ROUTER], selectors: ['0x'] }], limits: [] });
    const drain = tx({ type: 'legacy', to: ROUTER, gas: 21000, gasPrice: ((10n * 10n ** 18n) / 21000n).toString(), maxFeePerGas: undefined, maxPriorityFeePerGas: undefined });
    await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: drain })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringMatching(/no rule of this vault's policy allows this transaction \(rule pay: fee 9999999999999996000 wei .* over its maxFee 10000000000000000 \(the default/),
    });
    await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: tx({ to: ROUTER, gas: 21000 }) })).resolves.toMatchObject({ hash: expect.any(String) });
    await world.vault.managePolicies.apply(v.vaultId, { version: 2, rules: [{ id: 'pay', effect: 'allow', kinds: ['transaction'], chains: ['1'], contracts: [ROUTER], selectors: ['0x'], maxFee: '21000000000000' }], limits: [] });
    await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: tx({ to: ROUTER, gas: 21000 }) })).resolves.toBeDefined();
    await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: tx({ to: ROUTER, gas: 21001 }) })).rejects.toMatchObject({ code: 'POLICY_DENIED' });
  });
});

describe('finding 2: holds and limits apply to every route', () => {
  it('an approval rule (approvals add --required 2) no longer lets sign-transaction or typed data through unheld', async () => {
    const v = await aVault({ txChainIds: ['1'], txTo: [ROUTER], typedDataContracts: [`1:${USDC}`], messages: true });
    await world.vault.managePolicies.addApprovalRule(v.vaultId, { required: '2' });
    // Held for the quorum as Sign is: the approval, nothing signed.
    for (let i = 0; i < 4; i++) {
      const held = await world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: tx({ to: ROUTER, nonce: i }) });
      expect(held).toMatchObject({ approval: { status: 'pending', required: 2, ruleId: 'a1.transactions', functionSignature: 'transaction' } });
    }
    await expect(world.vault.signTypedData.execute({ principal: v.principal, address: v.address, typedData: transferWithAuthorization(ROUTER) })).resolves.toMatchObject({
      approval: { ruleId: 'a1.typed-data-1', functionSignature: 'typed-data TransferWithAuthorization' },
    });
    await expect(world.vault.signMessage.execute({ principal: v.principal, address: v.address, message: 'hi' })).resolves.toMatchObject({ approval: { ruleId: 'a1.messages', functionSignature: 'message' } });
    // Sign is held as before: 202 with the approval.
    await expect(world.vault.signCall.execute({ principal: v.principal, chain: 'local', contract: CONTRACT, sender: SENDER, uniq: UNIQ, signer: v.address, abi: SIGNER_ABI, args: ['1'] })).resolves.toHaveProperty('approval');
  });

  it('a limit (limits add --each wallet --max-signs 1 --per 1h) counts transactions, typed data and messages of the wallet together', async () => {
    const v = await aVault({ txChainIds: ['1'], txTo: [ROUTER], typedDataContracts: [`1:${USDC}`], messages: true });
    await world.vault.managePolicies.addLimit(v.vaultId, { each: 'wallet', maxSigns: '2', per: '1h' });
    await world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: tx({ to: ROUTER }) });
    await world.vault.signTypedData.execute({ principal: v.principal, address: v.address, typedData: transferWithAuthorization(ROUTER) });
    for (const attempt of [
      () => world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: tx({ to: ROUTER, nonce: 1 }) }),
      () => world.vault.signMessage.execute({ principal: v.principal, address: v.address, message: 'hi' }),
      () => world.vault.signCall.execute({ principal: v.principal, chain: 'local', contract: CONTRACT, sender: SENDER, uniq: UNIQ, signer: v.address, abi: SIGNER_ABI, args: ['1'] }),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'SIGN_LIMIT_REACHED', retryAfterSeconds: 3600, message: expect.stringMatching(/^limit l1: at most 2 signs per 1h for wallet 0x/) });
    }
  });
});

describe('finding 4: a rule restricts contents, not only addresses and selectors', () => {
  const document = {
    version: 2,
    rules: [
      {
        id: 'approve-router',
        effect: 'allow',
        kinds: ['transaction'],
        chains: ['ethereum'],
        contracts: [USDC],
        function: 'approve(address spender, uint256 amount)',
        where: [{ arg: 'spender', addressIn: [ROUTER] }, { arg: 'amount', lte: '1000000000' }],
      },
      { id: 'authorizations-to-router', effect: 'allow', kinds: ['typed-data'], chains: ['1'], contracts: [USDC], primaryTypes: ['TransferWithAuthorization'], where: [{ field: 'to', addressIn: [ROUTER] }] },
    ],
    limits: [],
  };

  it('approve(attacker, max) is refused where approve(router, 1000 USDC) is signed', async () => {
    const v = await aVault(document);
    const approve = (spender: string, amount: bigint) => tx({ to: USDC, data: erc20.encodeFunctionData('approve', [spender, amount]) });
    await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: approve(ROUTER, 1000_000000n) })).resolves.toBeDefined();
    await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: approve(ATTACKER, MAX) })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringMatching(/rule approve-router: args\[0\] spender: 0x9fE4.* is not one of 0xe7f1/),
    });
    await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: approve(ROUTER, MAX) })).rejects.toMatchObject({ code: 'POLICY_DENIED' });
    // Calldata that does not decode as the rule's function cannot be judged, so the allow does not match.
    const truncated = tx({ to: USDC, data: erc20.encodeFunctionData('approve', [ROUTER, 1n]).slice(0, 40) });
    await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: truncated })).rejects.toMatchObject({ code: 'POLICY_DENIED' });
    // transfer shares nothing with the rule's function: refused, whatever its arguments.
    const transfer = tx({ to: USDC, data: erc20.encodeFunctionData('transfer', [ROUTER, 1n]) });
    await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: transfer })).rejects.toMatchObject({ code: 'POLICY_DENIED' });
  });

  it('an EIP-3009 TransferWithAuthorization to anyone but the router is refused; to the router it is signed', async () => {
    const v = await aVault(document);
    await expect(world.vault.signTypedData.execute({ principal: v.principal, address: v.address, typedData: transferWithAuthorization(ROUTER) })).resolves.toHaveProperty('signature');
    await expect(world.vault.signTypedData.execute({ principal: v.principal, address: v.address, typedData: transferWithAuthorization(ATTACKER) })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringMatching(/message\.to: 0x9fE4.* is not one of 0xe7f1/),
    });
  });

  it('a deny rule beats an allow, and a hold beats an allow: the order of the document does not matter', async () => {
    const v = await aVault({
      version: 2,
      rules: [
        { id: 'all-calls', effect: 'allow', kinds: ['call'] },
        { id: 'big', effect: { hold: { required: 2 } }, kinds: ['call'], function: 'go(uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)', where: [{ arg: 'amount', gt: '100' }] },
        { id: 'huge', effect: 'deny', kinds: ['call'], function: 'go(uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)', where: [{ arg: 'amount', gt: '1000' }] },
      ],
      limits: [],
    });
    const sign = (amount: string) => world.vault.signCall.execute({ principal: v.principal, chain: 'local', contract: CONTRACT, sender: SENDER, uniq: UNIQ, signer: v.address, abi: SIGNER_ABI, args: [amount] });
    await expect(sign('100')).resolves.toHaveProperty('submissionHash');
    await expect(sign('101')).resolves.toHaveProperty('approval.required', 2);
    await expect(sign('1001')).rejects.toMatchObject({ code: 'POLICY_DENIED', message: 'policy: denied by rule huge' });
  });
});

describe('finding 5: a rule by selector alone cannot judge an integer', () => {
  it('policies apply refuses an integer condition on a function given by selector, naming the field', async () => {
    const v = await aVault();
    const bySelector = { version: 2, rules: [{ id: 'cap', effect: 'allow', kinds: ['call'], function: '0xa0712d68', where: [{ arg: 'args[0]', lte: '1000' }] }], limits: [] };
    await expect(world.vault.managePolicies.apply(v.vaultId, bySelector)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^rules\[0\]\.where\[0\]\.arg: an integer condition needs the rule's function as signature text/),
    });
    // Nothing was applied: the vault still has no policy.
    expect(await world.vault.managePolicies.show(v.vaultId)).toBeNull();
    // The older commands refuse it too (a rule stored before keeps deciding as it did).
    await expect(world.vault.managePolicies.addRules(v.vaultId, { function: '0xa0712d68', arg: '0', lte: '1000' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^function: 0xa0712d68 is a selector alone, and an integer rule \(lte\) needs the function's signature text/),
    });
    await expect(world.vault.managePolicies.addApprovalRule(v.vaultId, { required: 2, function: '0xa0712d68', arg: '0', gt: '1000' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // By selector, a rule that is no integer comparison is still accepted: it reads no type it could misread.
    await expect(world.vault.managePolicies.addRules(v.vaultId, { function: '0xa0712d68', arg: '0', eq: '0x01' })).resolves.toBeDefined();
  });
});

describe('a bad document changes nothing and is refused naming its field', () => {
  it.each([
    [{ version: 1, rules: [] }, /^version: must be 2/],
    [{ version: 2, rules: [{ id: 'x', effect: 'maybe' }] }, /^rules\[0\]\.effect: must be "allow", "deny" or/],
    [{ version: 2, rules: [{ id: 'x', effect: 'allow', kinds: ['calls'] }] }, /^rules\[0\]\.kinds\[0\]: "calls" is not one of call, message/],
    [{ version: 2, rules: [{ id: 'x', effect: 'allow', chains: ['mars'] }] }, /^rules\[0\]\.chains\[0\]: "mars" is not a chain id or one of/],
    [{ version: 2, rules: [{ id: 'x', effect: 'allow' }, { id: 'x', effect: 'deny' }] }, /^rules\[1\]\.id: "x" is used twice/],
    [{ version: 2, rules: [{ id: 'x', effect: 'allow', maxFee: '1e18' }] }, /^rules\[0\]\.maxFee: must be an amount of wei/],
    [{ version: 2, rules: [{ id: 'x', effect: 'allow', kinds: ['typed-data'], where: [{ field: 'to', lte: 'ten' }] }] }, /^rules\[0\]\.where\[0\]\.lte: "ten" is not an integer/],
    [{ version: 2, rules: [{ id: 'x', effect: 'allow', where: [{ field: 'to', eq: '1' }] }] }, /^rules\[0\]\.where\[0\]\.field: a rule with field conditions says "kinds": \["typed-data"\]/],
    [{ version: 2, rules: [], limits: [{ id: 'l', per: '1h' }] }, /^limits\[0\]: give maxSigns, maxValue \(or maxValueUsd\) or both/],
    [{ version: 2, rules: [], limits: [{ id: 'l', maxSigns: 1, per: '1h', token: USDC }] }, /^limits\[0\]\.token: counts with maxValue/],
    [{ version: 2, rules: [], limits: [{ id: 'l', maxValue: '1 ether', per: '1h' }] }, /^limits\[0\]\.maxValue: must be an amount of wei/],
    [{ version: 2, rules: [{ id: 'x', effect: 'allow', contracts: [] }] }, /^rules\[0\]\.contracts: must name at least one entry/],
  ])('%j', async (document, message) => {
    const v = await aVault({ messages: true });
    await expect(world.vault.managePolicies.apply(v.vaultId, document)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) });
    await expect(world.vault.signMessage.execute({ principal: v.principal, address: v.address, message: 'still allowed' })).resolves.toHaveProperty('signature');
  });
});

describe('the dry run', () => {
  it('answers the decision and the deciding rule of every kind, and signs, records and counts nothing', async () => {
    const v = await aVault({
      version: 2,
      rules: [
        { id: 'calls', effect: 'allow', kinds: ['call'] },
        { id: 'payouts', effect: 'allow', kinds: ['transaction'], chains: ['1'], contracts: [ROUTER], selectors: ['0x'], maxValue: '1000000000000000000' },
        { id: 'big', effect: { hold: { required: 2 } }, kinds: ['transaction'], chains: ['1'], contracts: [ROUTER], selectors: ['0x'], minValue: '1000000000000000001', maxValue: '5000000000000000000' },
        { id: 'no-messages', effect: 'deny', kinds: ['message'] },
      ],
      limits: [{ id: 'one', maxSigns: 1, per: '1h' }],
    });
    const before = (await world.vault.listAuditRecords.execute({ vaultId: v.vaultId, limit: 1000 })).length;
    const dry = (kind: string, request: unknown) => world.vault.evaluatePolicy.execute({ principal: v.principal, kind, wallet: v.address, request });
    await expect(dry('transaction', tx({ to: ROUTER, value: '1' }))).resolves.toEqual({ decision: 'allow', rule: 'payouts', message: 'policy: allowed by rule payouts' });
    await expect(dry('transaction', tx({ to: ROUTER, value: '2000000000000000000' }))).resolves.toMatchObject({ decision: 'hold', rule: 'big' });
    await expect(dry('transaction', tx({ to: ATTACKER }))).resolves.toMatchObject({ decision: 'deny', rule: null, message: expect.stringMatching(/rule payouts: recipient 0x9fE4.* is not in its contracts/) });
    await expect(dry('message', { message: 'hi' })).resolves.toEqual({ decision: 'deny', rule: 'no-messages', message: 'policy: denied by rule no-messages' });
    await expect(dry('call', { chain: 'local', contract: CONTRACT, sender: SENDER, uniq: UNIQ, signer: v.address, abi: SIGNER_ABI, args: ['1'] })).resolves.toMatchObject({ decision: 'allow', rule: 'calls' });
    // Read as the route reads it: a malformed request is the route's refusal, naming the field.
    await expect(dry('transaction', { chainId: 1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(dry('sign', {})).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'kind: must be one of call, message, typed-data, transaction, authorization' });
    // Nothing on record, nothing counted: the one sign the limit allows is still there.
    expect((await world.vault.listAuditRecords.execute({ vaultId: v.vaultId, limit: 1000 })).length).toBe(before);
    await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: tx({ to: ROUTER, value: '1' }) })).resolves.toBeDefined();
    await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: tx({ to: ROUTER, value: '1', nonce: 1 }) })).rejects.toMatchObject({ code: 'SIGN_LIMIT_REACHED' });
  });
});

// The calldata decoder reads what ethers encodes; a word out of its type's range does not decode.
it('decodes no calldata whose address word is out of range (the policy cannot judge it)', async () => {
  const v = await aVault({ version: 2, rules: [{ id: 'r', effect: 'allow', kinds: ['transaction'], contracts: [USDC], function: 'approve(address spender, uint256 amount)', where: [{ arg: 'spender', addressIn: [ROUTER] }] }], limits: [] });
  const dirty = `0x095ea7b3${AbiCoder.defaultAbiCoder().encode(['uint256', 'uint256'], [(1n << 200n) | BigInt(ROUTER), 1n]).slice(2)}`;
  await expect(world.vault.signTransaction.execute({ principal: v.principal, address: v.address, transaction: tx({ to: USDC, data: dirty }) })).rejects.toMatchObject({ code: 'POLICY_DENIED' });
});
