import { recoverTransactionAddress } from 'viem';
import { Interface } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client } from '../support/http-client.js';
import { describeEachBackend, itOn, type Target } from '../support/backends.js';

const ETHER = 10n ** 18n;
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const ROUTER = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const erc20 = new Interface([
  'function approve(address spender, uint256 amount)',
  'function transfer(address to, uint256 amount)',
  'function increaseAllowance(address spender, uint256 addedValue)',
  'function transferAndCall(address to, uint256 value, bytes data)',
]);
const MAX = (1n << 256n) - 1n;

/** A transaction of `value` wei on chain 1 to RECIPIENT; fees 0, so the wei moved is the value alone. */
const payment = (value: bigint, nonce: number) => ({ type: 'eip1559', chainId: 1, nonce, to: RECIPIENT, value: value.toString(), gas: 21000, maxFeePerGas: '0', maxPriorityFeePerGas: '0' });

/**
 * Limits in value (issue 34): wei moved per window and decoded ERC-20 amounts, reserved atomically before
 * the signature is released, so concurrent requests on several instances cannot together pass a limit.
 */
describeEachBackend('limits in value over HTTP', (backend) => {
  let s: Target;
  const pg = itOn(backend, { database: 'postgres' }, 'two instances share one database on PostgreSQL only');

  beforeAll(async () => {
    s = await backend.start();
  });
  afterAll(async () => {
    await s?.close();
  });

  const aVaultWith = async (name: string, document: unknown) => {
    const v = await s.vaultWithKey(name);
    const wallet: string = (await v.api.post(`${v.base}/wallets`, { name: 'payer' })).body.data.address;
    await s.vault.managePolicies.apply(v.vaultId, document);
    return { ...v, wallet };
  };

  it('at most 1 ETH a day: what fits is signed, the payment that would pass the limit is 429 with the wait, and nothing is reserved for it', async () => {
    const v = await aVaultWith('daily', {
      version: 2,
      rules: [{ id: 'pay', effect: 'allow', kinds: ['transaction'], chains: ['1'], contracts: [RECIPIENT], selectors: ['0x'], maxValue: ETHER.toString() }],
      limits: [{ id: 'daily', kinds: ['transaction'], each: 'wallet', maxValue: ETHER.toString(), per: '1d' }],
    });
    s.clock.freeze();
    const sign = (value: bigint, nonce: number) => v.api.post(`${v.base}/wallets/${v.wallet}/sign-transaction`, payment(value, nonce));
    const first = await sign((6n * ETHER) / 10n, 0);
    expect(first.status).toBe(200);
    expect(await recoverTransactionAddress({ serializedTransaction: first.body.data.serialized })).toBe(v.wallet);
    const over = await sign((5n * ETHER) / 10n, 1);
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('86400');
    expect(over.body).toEqual({
      success: false,
      error: `limit daily: at most ${ETHER} wei per 1d for wallet ${v.wallet} reached; retry after 86400 s`,
      code: 'SIGN_LIMIT_REACHED',
    });
    // The refused one reserved nothing: the rest of the day's ether still fits, and then nothing more.
    expect((await sign((4n * ETHER) / 10n, 1)).status).toBe(200);
    expect((await sign(1n, 2)).status).toBe(429);
    s.clock.advance(86_400_000);
    expect((await sign(1n, 2)).status).toBe(200);
  });

  it('a token limit counts the decoded ERC-20 amount: transfer and approve calldata alike; an unlimited approval never fits', async () => {
    const v = await aVaultWith('usdc', {
      version: 2,
      rules: [{ id: 'usdc', effect: 'allow', kinds: ['transaction'], chains: ['1'], contracts: [USDC], selectors: [erc20.getFunction('transfer')!.selector, erc20.getFunction('approve')!.selector] }],
      limits: [{ id: 'usdc-daily', token: USDC, maxValue: '1000000000', per: '1d' }],
    });
    const send = (data: string, nonce: number) =>
      v.api.post(`${v.base}/wallets/${v.wallet}/sign-transaction`, { type: 'eip1559', chainId: 1, nonce, to: USDC, value: '0', data, gas: 60000, maxFeePerGas: '1000000000', maxPriorityFeePerGas: '1' });
    expect((await send(erc20.encodeFunctionData('transfer', [RECIPIENT, 700_000000n]), 0)).status).toBe(200);
    const approve = await send(erc20.encodeFunctionData('approve', [ROUTER, 400_000000n]), 1);
    expect(approve.status).toBe(429);
    expect(approve.body.error).toMatch(new RegExp(`^limit usdc-daily: at most 1000000000 of token ${USDC} per 1d in all reached`));
    expect((await send(erc20.encodeFunctionData('approve', [ROUTER, 300_000000n]), 1)).status).toBe(200);
    expect((await send(erc20.encodeFunctionData('approve', [ROUTER, (1n << 256n) - 1n]), 2)).status).toBe(429);
  });

  it('a token limit fails closed: increaseAllowance(x, max) and transferAndCall(x, 1e15, 0x) are refused, by sign-transaction and the dry run alike, until the limit names the function', async () => {
    const rules = [{ id: 'usdc', effect: 'allow', kinds: ['transaction'], chains: ['1'], contracts: [USDC] }];
    const limit = { id: 'usdc-daily', token: USDC, maxValue: '1000', per: '1d' };
    const v = await aVaultWith('fail closed', { version: 2, rules, limits: [limit] });
    const tx = (data: string, nonce: number) => ({ type: 'eip1559', chainId: 1, nonce, to: USDC, value: '0', data, gas: 60000, maxFeePerGas: '1000000000', maxPriorityFeePerGas: '1' });
    const send = (data: string, nonce: number) => v.api.post(`${v.base}/wallets/${v.wallet}/sign-transaction`, tx(data, nonce));
    const dryRun = (data: string) => v.api.post(`${v.base}/policy/evaluate`, { kind: 'transaction', wallet: v.wallet, request: tx(data, 0) });
    const refusal = (selector: string) =>
      `policy: limit usdc-daily counts token ${USDC} and cannot read what this transaction moves of it: selector ${selector} is not a movement it knows ` +
      "(transfer, transferFrom, approve; others are named in the limit's moves), so it counts as more than the limit";

    // As before: an unlimited approval is read, and never fits.
    expect((await send(erc20.encodeFunctionData('approve', [ROUTER, MAX]), 0)).status).toBe(429);
    const increase = erc20.encodeFunctionData('increaseAllowance', [ROUTER, MAX]);
    const andCall = erc20.encodeFunctionData('transferAndCall', [ROUTER, 10n ** 15n, '0x']);
    for (const data of [increase, andCall]) {
      const selector = data.slice(0, 10);
      const signed = await send(data, 0);
      expect([signed.status, signed.body]).toEqual([403, { success: false, error: refusal(selector), code: 'POLICY_DENIED' }]);
      const dry = await dryRun(data);
      expect([dry.status, dry.body.data]).toEqual([200, { decision: 'deny', rule: null, message: refusal(selector) }]);
    }
    const denied = (await s.vault.listAuditRecords.execute({ vaultId: v.vaultId, limit: 1000 })).filter((r) => r.action === 'sign.denied' && String(r.details.rule).startsWith('policy: limit usdc-daily'));
    expect(denied).toHaveLength(2);
    // The limit names increaseAllowance and its amount: it is then counted, and what fits is signed.
    const moves = [{ function: 'increaseAllowance(address spender, uint256 addedValue)', amount: 'addedValue', recipient: 'spender' }];
    await s.vault.managePolicies.apply(v.vaultId, { version: 2, rules, limits: [{ ...limit, moves }] });
    expect((await dryRun(increase)).body.data).toEqual({ decision: 'allow', rule: 'usdc', message: 'policy: allowed by rule usdc' });
    expect((await send(increase, 0)).status).toBe(429);
    expect((await send(erc20.encodeFunctionData('increaseAllowance', [ROUTER, 600n]), 0)).status).toBe(200);
    expect((await send(erc20.encodeFunctionData('increaseAllowance', [ROUTER, 401n]), 1)).status).toBe(429);
    // Nothing was reserved for the refusals: with the 600, the day's 1000 holds exactly 400 more.
    expect((await send(erc20.encodeFunctionData('transfer', [RECIPIENT, 400n]), 1)).status).toBe(200);
    // transferAndCall is still not named: still refused.
    expect((await send(andCall, 2)).status).toBe(403);
  });

  pg('two instances on one database: 20 concurrent 0.1 ETH transactions against 1 ETH a day sign exactly 10', async () => {
    const v = await aVaultWith('shared value', {
      version: 2,
      rules: [{ id: 'pay', effect: 'allow', kinds: ['transaction'], chains: ['1'], contracts: [RECIPIENT], selectors: ['0x'], maxValue: ETHER.toString() }],
      limits: [{ id: 'daily', kinds: ['transaction'], each: 'wallet', maxValue: ETHER.toString(), per: '1d' }],
    });
    const peer = await s.peer({ shareKeys: true });
    const instances = [client(s.url, v.apiKey), client(peer.url, v.apiKey)];
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => instances[i % 2]!.post(`${v.base}/wallets/${v.wallet}/sign-transaction`, payment(ETHER / 10n, i))),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
    expect(replies.filter((r) => r.status === 429 && r.body.code === 'SIGN_LIMIT_REACHED')).toHaveLength(10);
    // What was signed is on record, whichever instance signed it.
    const records = await s.vault.listAuditRecords.execute({ limit: 1000 });
    expect(records.filter((r) => r.vaultId === v.vaultId && r.action === 'sign.transaction')).toHaveLength(10);
  });
});
