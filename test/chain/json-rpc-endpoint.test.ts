import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { FetchRequest, JsonRpcProvider, Network, parseEther, verifyMessage } from 'ethers';
import { createWalletClient, http, recoverTypedDataAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../adapters/main/create-vault.js';
import { startAnvil, type Anvil } from '../support/anvil.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { permit } from '../support/typed-data-fixtures.js';

/**
 * POST /api/v1/vaults/{vault}/rpc, the vault's wallets behind Ethereum JSON-RPC (as Web3Signer's eth1
 * mode), with a chain added as VAULT_CHAINS=devnet:31337 whose RPC is anvil. Driven by ethers'
 * JsonRpcProvider and a viem wallet client exactly as they drive a node: accounts, signatures, and
 * eth_sendTransaction filled (nonce, gas, fees), signed under the policy and sent; the rest relayed.
 */
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
/** Foundry's cast, from the npm package @foundry-rs/cast (a development dependency, as anvil is). */
const CAST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.bin/cast');
const CHAIN_ID = 31337;

describe('the JSON-RPC endpoint on anvil', () => {
  let anvil: Anvil;
  let s: TestServer;
  let vault: Vault;
  let vaultId: string;
  let apiKey: string;
  let address: Hex;
  let rpc: JsonRpcProvider;
  let endpoint: string;

  /** One raw JSON-RPC exchange with the endpoint. */
  const call = async (method: string, params: unknown[] = [], path = endpoint) => {
    const res = await fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    });
    return { status: res.status, body: (await res.json()) as { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: { code?: string } } } };
  };

  beforeAll(async () => {
    anvil = await startAnvil();
    s = await startTestServer({ env: { VAULT_CHAINS: `devnet:${CHAIN_ID}`, VAULT_RPC_URL_DEVNET: anvil.rpcUrl } });
    vault = s.server.vault;
    vaultId = (await vault.manageVaults.create({ name: 'json-rpc' })).id;
    apiKey = (await vault.manageVaults.createApiKey(vaultId)).apiKey;
    const principal = await vault.authenticate.execute(apiKey, vaultId);
    address = (await vault.createWallet.execute({ principal, name: 'rpc' })).address as Hex;
    await vault.managePolicies.set(vaultId, { txChainIds: [String(CHAIN_ID)], txTo: [RECIPIENT], txMaxValue: parseEther('1').toString(), messages: true, typedDataContracts: [`${CHAIN_ID}:0x000000000000000000000000000000000000dEaD`] });
    await (await anvil.account(0).sendTransaction({ to: address, value: parseEther('10') })).wait();
    endpoint = `${s.url}/api/v1/vaults/${vaultId}/rpc`;
    const request = new FetchRequest(endpoint);
    request.setHeader('authorization', `Bearer ${apiKey}`);
    rpc = new JsonRpcProvider(request, Network.from(CHAIN_ID), { staticNetwork: true, cacheTimeout: -1 });
  });

  afterAll(async () => {
    rpc?.destroy();
    await s?.stop();
    await anvil?.stop();
  });

  it("answers eth_accounts with the vault's wallets, and relays what it does not answer (eth_chainId, eth_getBalance)", async () => {
    expect(await rpc.send('eth_accounts', [])).toEqual([address]);
    expect(BigInt(await rpc.send('eth_chainId', []))).toBe(BigInt(CHAIN_ID));
    expect(await rpc.getBalance(address)).toBe(await anvil.provider.getBalance(address));
  });

  it('sends a transaction with eth_sendTransaction: nonce, gas and fees filled from the chain, signed by the vault, mined', async () => {
    const before = await anvil.provider.getBalance(RECIPIENT);
    const hash = (await rpc.send('eth_sendTransaction', [{ from: address, to: RECIPIENT, value: '0x3e8' }])) as string;
    const receipt = await anvil.provider.waitForTransaction(hash);
    expect([receipt?.status, receipt?.type, receipt?.from]).toEqual([1, 2, address]);
    expect((await anvil.provider.getBalance(RECIPIENT)) - before).toBe(1000n);
    // A legacy one when the caller names a gas price, and viem's wallet client over the same endpoint.
    const legacy = (await rpc.send('eth_sendTransaction', [{ from: address, to: RECIPIENT, value: '0x1', gasPrice: await rpc.send('eth_gasPrice', []) }])) as string;
    expect((await anvil.provider.waitForTransaction(legacy))?.type).toBe(0);
    const viem = createWalletClient({ transport: http(endpoint, { fetchOptions: { headers: { authorization: `Bearer ${apiKey}` } } }) });
    const viaViem = await viem.sendTransaction({ account: address, to: RECIPIENT, value: 2n, chain: null });
    expect((await anvil.provider.waitForTransaction(viaViem))?.status).toBe(1);
  });

  it('works with `cast send --rpc-url` (the API key as an RPC header): filled, signed by the vault, mined', async () => {
    const before = await anvil.provider.getBalance(RECIPIENT);
    const { stdout } = await promisify(execFile)(
      CAST,
      ['send', '--rpc-url', endpoint, '--rpc-headers', `Authorization: Bearer ${apiKey}`, '--unlocked', '--from', address, RECIPIENT, '--value', '1234', '--json'],
      { timeout: 120_000 },
    );
    const receipt = JSON.parse(stdout) as { status: string; from: string; transactionHash: string };
    expect([receipt.status, receipt.from.toLowerCase()]).toEqual(['0x1', address.toLowerCase()]);
    expect((await anvil.provider.getBalance(RECIPIENT)) - before).toBe(1234n);
    // What cast reads back through the endpoint (relayed) is the chain's.
    const { stdout: nonce } = await promisify(execFile)(CAST, ['nonce', '--rpc-url', endpoint, '--rpc-headers', `Authorization: Bearer ${apiKey}`, address]);
    expect(Number(nonce.trim())).toBe(await anvil.provider.getTransactionCount(address));
  });

  it('signs personal_sign, eth_sign and eth_signTypedData_v4 for a vault wallet; ethers and viem recover it', async () => {
    const text = 'sign in, nonce 9';
    const hexText = `0x${Buffer.from(text).toString('hex')}`;
    expect(verifyMessage(text, await rpc.send('personal_sign', [hexText, address]))).toBe(address);
    expect(verifyMessage(text, await rpc.send('eth_sign', [address, hexText]))).toBe(address);
    const typedData = permit({ name: 'T', version: '1', chainId: CHAIN_ID, verifyingContract: '0x000000000000000000000000000000000000dEaD' }, { owner: address, spender: RECIPIENT, value: 1n, nonce: 0n, deadline: 10n });
    const json = JSON.stringify(typedData, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    const signature = (await rpc.send('eth_signTypedData_v4', [address, json])) as Hex;
    expect(await recoverTypedDataAddress({ ...typedData, signature } as never)).toBe(address);
  });

  it('answers a refusal as a JSON-RPC error naming the rule and the vault code; nothing reaches the chain', async () => {
    const nonce = await anvil.provider.getTransactionCount(address, 'pending');
    const over = await call('eth_sendTransaction', [{ from: address, to: RECIPIENT, value: `0x${parseEther('2').toString(16)}` }]);
    expect(over.status).toBe(200);
    expect(over.body.id).toBe(7);
    expect(over.body.error).toMatchObject({ code: -32000, data: { code: 'POLICY_DENIED' } });
    expect(over.body.error!.message).toMatch(/^policy: /);
    const stranger = await call('eth_sendTransaction', [{ from: address, to: await anvil.account(3).getAddress(), value: '0x1' }]);
    expect(stranger.body.error?.data?.code).toBe('POLICY_DENIED');
    expect(await anvil.provider.getTransactionCount(address, 'pending')).toBe(nonce);
    // Another vault's (or no) wallet, and bad params.
    const foreign = await call('personal_sign', ['0x00', RECIPIENT]);
    expect(foreign.body.error).toMatchObject({ code: -32000, data: { code: 'WALLET_NOT_FOUND' } });
    expect((await call('eth_sign', [address, 'not hex'])).body.error).toMatchObject({ code: -32602, data: { code: 'INVALID_ARGUMENT' } });
  });

  it("never passes a node's own signing methods on, nor any method but reads and eth_sendRawTransaction", async () => {
    for (const method of ['eth_signTypedData_v3', 'personal_unlockAccount', 'eth_requestAccounts', 'admin_nodeInfo', 'debug_traceTransaction', 'miner_stop', 'txpool_content', 'anvil_mine', 'evm_snapshot', 'no_such_method']) {
      expect((await call(method, [])).body.error, method).toMatchObject({ code: -32601, data: { code: 'ROUTE_NOT_FOUND' } });
    }
  });

  it("refuses issue 34's attack: anvil_impersonateAccount then eth_sendUnsignedTransaction move nothing", async () => {
    const [balance, nonce] = [await anvil.provider.getBalance(address), await anvil.provider.getTransactionCount(address, 'pending')];
    expect((await call('anvil_impersonateAccount', [address])).body.error).toMatchObject({ code: -32601, data: { code: 'ROUTE_NOT_FOUND' } });
    const sent = await call('eth_sendUnsignedTransaction', [{ from: address, to: RECIPIENT, value: `0x${parseEther('5').toString(16)}` }]);
    expect(sent.body.error).toMatchObject({ code: -32601, data: { code: 'ROUTE_NOT_FOUND' } });
    // Anvil itself would have sent it for an impersonated account: nothing was asked of it.
    expect([await anvil.provider.getBalance(address), await anvil.provider.getTransactionCount(address, 'pending')]).toEqual([balance, nonce]);
  });

  it("refuses a chainId that is not the endpoint chain's, and relays the node's own errors as they are", async () => {
    const other = await call('eth_sendTransaction', [{ from: address, to: RECIPIENT, value: '0x1', chainId: '0x1' }]);
    expect(other.body.error).toMatchObject({ code: -32602, data: { code: 'INVALID_ARGUMENT' } });
    expect(other.body.error!.message).toMatch(/^params\[0\]\.chainId: "0x1" is not the chain id of devnet \(31337\)/);
    // A raw transaction the node refuses (not RLP): the node's own error, passed on.
    const raw = await call('eth_sendRawTransaction', ['0x00']);
    expect(raw.status).toBe(200);
    expect(raw.body.error?.data?.code).toBeUndefined();
    expect(typeof raw.body.error?.code).toBe('number');
  });

  it('takes a batch, and a call that is not JSON-RPC is an error of its own', async () => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_accounts' },
        { id: 2, method: 'eth_accounts' },
        { jsonrpc: '2.0', id: 'x', method: 'eth_chainId' },
        // A member JSON-RPC does not define binds nothing: named, as every body's unknown field is.
        { jsonrpc: '2.0', id: 3, method: 'eth_accounts', chainId: 5 },
      ]),
    });
    const answers = (await res.json()) as { id: unknown; result?: unknown; error?: { code: number; message: string } }[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 'x', 3]);
    expect(answers[0]!.result).toEqual([address]);
    expect(answers[1]!.error?.code).toBe(-32600);
    expect(BigInt(answers[2]!.result as string)).toBe(BigInt(CHAIN_ID));
    expect(answers[3]!.error).toMatchObject({ code: -32600, message: 'chainId: is not a member of a JSON-RPC call (jsonrpc, method, params, id)' });
    // Each call may wait on the chain's RPC and a batch counts once against the rate limit: ten at most.
    const eleven = Array.from({ length: 11 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId' }));
    const tooMany = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(eleven) });
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { error: string }).error).toBe('body: a JSON-RPC batch of more than 10 calls');
  });

  it('is authenticated as every vault route, and names a chain it has no RPC for', async () => {
    const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}' });
    expect(res.status).toBe(401);
    const unknown = await call('eth_accounts', [], `${endpoint}?chain=sepolia`);
    expect(unknown.status).toBe(400);
  });

  it('answers any call, however damaged, with JSON-RPC or a 4xx envelope: never a 5xx (fuzzed)', async () => {
    const METHODS = ['eth_accounts', 'eth_sign', 'personal_sign', 'eth_signTypedData_v4', 'eth_signTransaction', 'eth_sendTransaction', 'eth_blockNumber', 'eth_getBalance', 'eth_call'];
    const param = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(address), fc.constant(RECIPIENT), fc.string({ maxLength: 40 }).map((h) => `0x${h}`), fc.record({ from: fc.constantFrom(address, RECIPIENT, 'x'), to: fc.option(fc.constantFrom(RECIPIENT, address, '0x12'), { nil: undefined }), value: fc.oneof(fc.constant('0x1'), fc.jsonValue()), gas: fc.option(fc.jsonValue(), { nil: undefined }) }));
    const entry = fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue()), id: fc.oneof(fc.integer(), fc.string(), fc.jsonValue()), method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 20 }), fc.jsonValue()), params: fc.oneof(fc.array(param, { maxLength: 3 }), fc.jsonValue()) }, { requiredKeys: [] });
    const body = fc.oneof(entry, fc.array(entry, { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }));
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(b) });
        const answer = (await res.json()) as Record<string, unknown> | Record<string, unknown>[];
        expect(res.status, JSON.stringify(b)).toBeLessThan(500);
        if (res.status !== 200) expect(answer).toMatchObject({ success: false, code: expect.any(String) });
        else for (const a of [answer].flat()) expect('result' in a || 'error' in a, JSON.stringify(a)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
