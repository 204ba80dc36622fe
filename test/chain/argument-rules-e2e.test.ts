import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contract } from 'ethers';
import { ListAuditRecords } from '../../src/application/audit/list-audit-records.use-case.js';
import { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import type { ArgumentRuleInput } from '../../src/domain/argument-rule-input.js';
import { signableAbiItem, startSignableChain, type SignableChain } from '../support/signable-chain.js';

const UNIQ = `0x${'5a'.repeat(32)}`;
const TOKEN = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const item = (amount: number | string, data = '0x') => ({ token: TOKEN, amount, data });
const order = (amount: number | string) => ({ id: 7, item: item(amount), memo: 'order' });

interface Case {
  title: string;
  fn: string;
  /** The rules, `function` left out: filled in as `by` says. */
  rules: Omit<ArgumentRuleInput, 'function'>[];
  /** How the rules name the function: signature text with names as ethers writes it, or the selector. */
  by: 'text' | 'selector';
  refused: unknown[];
  error: RegExp;
  allowed: unknown[];
}

/** Each case is an attempt to get round a rule, and the value one step inside it that the contract then accepts. */
const cases: Case[] = [
  {
    title: 'an amount one above the bound',
    fn: 'mint',
    by: 'text',
    rules: [{ arg: 'amount', lte: '1000' }],
    refused: [TOKEN, '1001'],
    error: /^policy: denied by rule r1: args\[1\] amount: 1001 > 1000$/,
    allowed: [TOKEN, 1000],
  },
  {
    // By text: an integer rule on a function named by selector alone is refused when it is added (issue 34).
    title: 'a huge uint that would overflow a Number, by position',
    fn: 'mint',
    by: 'text',
    rules: [{ arg: '1', lte: String(2n ** 255n) }],
    refused: [TOKEN, `0x${'ff'.repeat(32)}`],
    error: new RegExp(`^policy: denied by rule r1: args\\[1\\] amount: ${2n ** 256n - 1n} > ${2n ** 255n}$`),
    allowed: [TOKEN, (2n ** 255n).toString()],
  },
  {
    title: 'a recipient outside the list, the list typed in lower case and the request in upper',
    fn: 'mint',
    by: 'selector',
    rules: [{ arg: 'args[0]', addressIn: [TOKEN.toLowerCase()] }],
    refused: [OTHER, 1],
    error: new RegExp(`^policy: denied by rule r1: args\\[0\\]: ${OTHER} is not one of ${TOKEN}$`),
    allowed: [`0x${TOKEN.slice(2).toUpperCase()}`, 1],
  },
  {
    title: 'a negative int below the floor',
    fn: 'first',
    by: 'text',
    rules: [{ arg: 'b', gte: '-10' }, { arg: 'c', eq: 'true' }],
    refused: [1, '-11', true],
    error: /^policy: denied by rule r1: args\[1\] b: -11 < -10$/,
    allowed: [1, -10, true],
  },
  {
    title: 'a nested tuple field, given as an object',
    fn: 'structs',
    by: 'text',
    rules: [{ arg: 'order.item.amount', lte: '100' }, { arg: 'items.amount', lte: '100' }],
    refused: [order(101), []],
    error: /^policy: denied by rule r1: args\[0\]\[1\]\[1\] order\.item\.amount: 101 > 100$/,
    allowed: [order(100), [item(100), [TOKEN, 1, '0x01']]],
  },
  {
    title: 'one element of an array of tuples, given as arrays',
    fn: 'structs',
    by: 'text',
    rules: [{ arg: 'items.amount', lte: '100' }],
    refused: [order(1), [[TOKEN, 1, '0x'], [TOKEN, 101, '0x']]],
    error: /^policy: denied by rule r1: args\[1\]\[1\]\[1\] items\.amount: 101 > 100$/,
    allowed: [order(1), [[TOKEN, 1, '0x'], [TOKEN, 100, '0x']]],
  },
  {
    title: 'an element of a nested array, and too many words',
    fn: 'arrays',
    by: 'text',
    rules: [{ arg: 'nested', lte: '9' }, { arg: 'words', maxLength: '2' }, { arg: 'pair', addressIn: [TOKEN, OTHER] }],
    refused: [[1], [TOKEN, OTHER], [[1, 2], [], [9, 10]], [], ['a']],
    error: /^policy: denied by rule r1: args\[2\]\[2\]\[1\] nested: 10 > 9$/,
    allowed: [[1], [TOKEN, OTHER], [[1, 2], [], [9]], [], ['a', 'b']],
  },
  {
    title: 'a blob with another prefix in another case, and a memo long in UTF-8 bytes',
    fn: 'middle',
    by: 'text',
    rules: [{ arg: 'blob', bytesPrefix: '0xDEAD' }, { arg: 'memo', maxLength: '4' }],
    refused: [`0x${'11'.repeat(32)}`, 'éé', '0xdeafbeef'],
    error: /^policy: denied by rule r1: args\[2\] blob: 0xdeafbeef does not start with 0xdead$/,
    allowed: [`0x${'11'.repeat(32)}`, 'éé', '0xDEADbeef'],
  },
];

describe('rules on decoded arguments, on a real EVM (anvil)', () => {
  let chain: SignableChain;

  beforeAll(async () => {
    chain = await startSignableChain('ruled chain', UNIQ);
  });
  afterAll(async () => {
    await chain?.stop();
  });

  const policies = () => chain.server.server.container.get(ManagePolicies);
  const trail = () => chain.server.server.container.get(ListAuditRecords).execute({ vaultId: chain.vaultId, limit: 1000 });
  const sign = (fn: string, args: unknown[], abi: unknown = signableAbiItem(fn)) =>
    chain.api.post(`${chain.base}/sign`, { chain: 'local', contract: chain.target.target, sender: chain.sender, uniq: UNIQ, signer: chain.signer, abi, args });
  const calls = async () => (await chain.target.getFunction('calls')()) as bigint;
  const send = async (fn: string, args: unknown[]) => (await (chain.target.connect(chain.anvil.account(1)) as Contract).getFunction(fn)(...args)).wait();

  const useRules = async (fn: string, by: Case['by'], rules: Case['rules']) => {
    await policies().removeRules(chain.vaultId, {});
    const described = chain.target.interface.getFunction(fn)!;
    const functionText = by === 'text' ? described.format('full') : described.selector;
    for (const rule of rules) await policies().addRules(chain.vaultId, { function: functionText, ...rule });
  };

  it.each(cases)('$fn, $title: refused with 403 naming rule and argument, recorded, nothing signed; within the rule, signed and accepted on-chain', async ({ fn, by, rules, refused, error, allowed }) => {
    await useRules(fn, by, rules);
    const before = await trail();
    const r = await sign(fn, refused);
    expect(r.status, JSON.stringify(r.body)).toBe(403);
    expect(r.body).toMatchObject({ success: false, code: 'POLICY_DENIED' });
    expect(r.body.error).toMatch(error);
    const after = (await trail()).slice(before.length);
    expect(after).toEqual([expect.objectContaining({ action: 'sign.denied', details: expect.objectContaining({ rule: r.body.error, selector: chain.target.interface.getFunction(fn)!.selector }) })]);

    const ok = await sign(fn, allowed);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const counted = await calls();
    expect((await send(fn, ok.body.data.args))?.status).toBe(1);
    expect(await calls()).toBe(counted + 1n);
  });

  it('renaming the arguments in the request\'s ABI item does not get round a rule that named one', async () => {
    await useRules('mint', 'text', [{ arg: 'amount', lte: '1000' }]);
    const mint = signableAbiItem('mint') as { inputs: { name: string }[] };
    const renamed = { ...mint, inputs: mint.inputs.map((p) => ({ ...p, name: p.name === 'amount' ? 'to' : p.name === 'to' ? 'amount' : p.name })) };
    const r = await sign('mint', [TOKEN, 5000], renamed);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('policy: denied by rule r1: args[1] amount: 5000 > 1000');
  });

  it('rules of another function leave this one alone, and the chain lists still apply (a deny rule is named first: any deny refuses)', async () => {
    await useRules('first', 'text', [{ arg: 'b', gte: '0' }]);
    const ok = await sign('mint', [TOKEN, 5000]);
    expect(ok.status).toBe(200);
    expect((await send('mint', ok.body.data.args))?.status).toBe(1);
    await policies().set(chain.vaultId, { chains: ['sepolia'] });
    // Off the chain list and breaking r1: the one policy names the deny rule (docs/policy.md, The decision).
    const r = await sign('first', [1, -1, true]);
    expect(r.body.error).toBe('policy: denied by rule r1: args[1] b: -1 < 0');
    // Keeping r1, the chain list alone refuses it.
    const off = await sign('first', [1, 1, true]);
    expect(off.status).toBe(403);
    expect(off.body.error).toBe("policy: no rule of this vault's policy allows this call (rule calls: chain local is not in its chains)");
    await policies().clear(chain.vaultId);
  });
});
