import { parseEther } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../adapters/main/create-vault.js';
import { deploy, startAnvil, type Anvil } from '../support/anvil.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Limits in dollars priced by an on-chain feed (a Chainlink AggregatorV3 compiled by solc-js, on anvil),
 * read through the chain reader at each sign: a fresh answer prices the limit exactly; an answer older
 * than the feed's maxAgeSeconds refuses, naming the feed (PRICE_FEED_STALE); a feed that cannot be read
 * fails closed (PRICE_FEED_UNAVAILABLE). Nothing is counted or signed for a refusal.
 */
const CHAIN_ID = 31337;
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

describe('limits in dollars from a price feed, on anvil', () => {
  let anvil: Anvil;
  let s: TestServer;
  let vault: Vault;
  let vaultId: string;
  let apiKey: string;
  let wallet: string;
  let feed: Awaited<ReturnType<typeof deploy>>;
  let feedAddress: string;

  const payment = (value: bigint, nonce: number) => ({ type: 'eip1559', chainId: CHAIN_ID, nonce, to: RECIPIENT, value: value.toString(), gas: 21000, maxFeePerGas: '0', maxPriorityFeePerGas: '0' });
  const sign = async (value: bigint, nonce: number) => {
    const res = await fetch(`${s.url}/api/v1/vaults/${vaultId}/wallets/${wallet}/sign-transaction`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(payment(value, nonce)),
    });
    return { status: res.status, body: (await res.json()) as { code?: string; error?: string } };
  };
  const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000));
  const setRound = async (answer: bigint, updatedAt: bigint) => (await feed.getFunction('setRound')(answer, updatedAt)).wait();
  const apply = (feeds: Record<string, unknown>) =>
    vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [{ id: 'pay', effect: 'allow', kinds: ['transaction'], contracts: [RECIPIENT], selectors: ['0x'], simulate: false }],
      priceFeeds: feeds,
      limits: [{ id: 'daily-usd', kinds: ['transaction'], maxValueUsd: '1000', per: '1d' }],
    });

  beforeAll(async () => {
    anvil = await startAnvil();
    s = await startTestServer({ env: { VAULT_CHAINS: `devnet:${CHAIN_ID}`, VAULT_RPC_URL_DEVNET: anvil.rpcUrl, VAULT_OUTBOUND_TIMEOUT_MS: '2000' } });
    vault = s.server.vault;
    vaultId = (await vault.manageVaults.create({ name: 'usd limits' })).id;
    apiKey = (await vault.manageVaults.createApiKey(vaultId)).apiKey;
    const principal = await vault.authenticate.execute(apiKey, vaultId);
    wallet = (await vault.createWallet.execute({ principal, name: 'payer' })).address;
    feed = await deploy(anvil, 'PriceAggregator', [8]);
    feedAddress = await feed.getAddress();
  });

  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
  });

  it('a fresh answer prices the limit exactly: 2000 USD an ether, 1000 USD a day is 0.5 ETH and not a wei more', async () => {
    await apply({ native: { feed: feedAddress, maxAgeSeconds: 3600 } });
    await setRound(2000n * 10n ** 8n, nowSeconds());
    expect((await sign(parseEther('0.4'), 0)).status).toBe(200);
    expect((await sign(parseEther('0.1'), 1)).status).toBe(200);
    const over = await sign(1n, 2);
    expect([over.status, over.body.code]).toEqual([429, 'SIGN_LIMIT_REACHED']);
  });

  it('a stale answer refuses a USD-limited transfer naming the feed; nothing is counted', async () => {
    const other = await s.server.vault.manageVaults.create({ name: 'stale' });
    vaultId = other.id;
    apiKey = (await vault.manageVaults.createApiKey(vaultId)).apiKey;
    wallet = (await vault.createWallet.execute({ principal: await vault.authenticate.execute(apiKey, vaultId), name: 'payer' })).address;
    await apply({ native: { feed: feedAddress, maxAgeSeconds: 3600 } });
    const updated = nowSeconds() - 7200n;
    await setRound(2000n * 10n ** 8n, updated);
    const stale = await sign(parseEther('0.1'), 0);
    expect(stale.status).toBe(503);
    expect(stale.body.code).toBe('PRICE_FEED_STALE');
    expect(stale.body.error).toBe(
      `limit daily-usd: price feed ${feedAddress} of native on chain devnet answered at ${new Date(Number(updated) * 1000).toISOString()}, older than its maxAgeSeconds 3600; nothing was signed`,
    );
    const denied = (await vault.listAuditRecords.execute({ vaultId, limit: 100 })).filter((r) => r.action === 'sign.denied');
    expect(denied.map((r) => r.details.rule)).toEqual([stale.body.error]);
    // Fresh again: the whole day's 1000 USD is there (the refusal counted nothing).
    await setRound(2000n * 10n ** 8n, nowSeconds());
    expect((await sign(parseEther('0.5'), 0)).status).toBe(200);
  });

  it('a feed that cannot be read fails closed: a reverting aggregator, an address without code', async () => {
    await (await feed.getFunction('setBroken')(true)).wait();
    const broken = await sign(1n, 1);
    expect([broken.status, broken.body.code]).toEqual([502, 'PRICE_FEED_UNAVAILABLE']);
    expect(broken.body.error).toMatch(new RegExp(`^limit daily-usd: price feed ${feedAddress} of native on chain devnet cannot be read \\(.*not an aggregator\\)\\); nothing was signed$`));
    await (await feed.getFunction('setBroken')(false)).wait();
    await apply({ native: { feed: RECIPIENT, maxAgeSeconds: 3600 } });
    const noCode = await sign(1n, 1);
    expect([noCode.status, noCode.body.code]).toEqual([502, 'PRICE_FEED_UNAVAILABLE']);
    expect(noCode.body.error).toContain(`price feed ${RECIPIENT} of native on chain devnet cannot be read`);
  });
});
