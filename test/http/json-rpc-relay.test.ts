import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RELAY_BATCH_MAX_BYTES, RELAY_CALL_MAX_BYTES } from '../../src/application/signing/json-rpc.use-case.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * The JSON-RPC endpoint's relay against a stand-in chain RPC that counts every request it gets and can
 * answer eth_getLogs with a body of any size: what issue 34 found (a deny-list relay, unbounded answers,
 * a transaction's chainId unchecked, a denied eth_sendTransaction costing upstream calls), each tried
 * as an attacker would and refused. The vault is the real one (server, SQLite, key store, policy, audit).
 */
const CHAIN_ID = 31337;
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const STRANGER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const MiB = 1024 * 1024;

/** A chain RPC that records the methods it is asked and answers eth_getLogs with `logsBytes` of result. */
class StandInRpc {
  readonly asked: string[] = [];
  logsBytes = 100;
  /** Whether eth_getLogs' answer declares its length (Content-Length) or is sent chunked. */
  declareLength = false;
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.answer(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) text += chunk;
    const { id, method } = JSON.parse(text) as { id: number; method: string };
    this.asked.push(method);
    if (method === 'eth_getLogs') return this.logs(id, res);
    // eth_call: the simulation before each signed transaction (a plain transfer returns nothing).
    const results: Record<string, unknown> = { eth_chainId: `0x${CHAIN_ID.toString(16)}`, eth_blockNumber: '0x10', eth_call: '0x' };
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(method in results ? { jsonrpc: '2.0', id, result: results[method] } : { jsonrpc: '2.0', id, error: { code: -32601, message: 'no' } }));
  }

  /** `{"jsonrpc":"2.0","id":…,"result":"aaa…"}` of logsBytes in all, written 64 KiB at a time as the reader takes them. */
  private async logs(id: number, res: ServerResponse): Promise<void> {
    const head = `{"jsonrpc":"2.0","id":${id},"result":"`;
    const filler = this.logsBytes - head.length - 2;
    res.setHeader('content-type', 'application/json');
    if (this.declareLength) res.setHeader('content-length', this.logsBytes);
    res.write(head);
    const chunk = 'a'.repeat(64 * 1024);
    for (let left = filler; left > 0 && !res.destroyed; left -= chunk.length) {
      if (!res.write(left >= chunk.length ? chunk : chunk.slice(0, left))) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done).off('close', done);
            resolve();
          };
          res.on('drain', done).on('close', done);
        });
      }
    }
    if (!res.destroyed) res.end('"}');
  }
}

describe('the JSON-RPC relay against a counting stand-in chain RPC', () => {
  const upstream = new StandInRpc();
  let s: TestServer;
  let vaultId: string;
  let apiKey: string;
  let wallet: string;
  let endpoint: string;

  type Answer = { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: { code?: string } } };
  const post = async (body: unknown) => {
    const res = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Answer | Answer[] };
  };
  const call = async (method: string, params: unknown[] = []) => {
    const { status, body } = await post({ jsonrpc: '2.0', id: 1, method, params });
    expect(status).toBe(200);
    return body as Answer;
  };

  beforeAll(async () => {
    await upstream.start();
    s = await startTestServer({ env: { VAULT_CHAINS: `devnet:${CHAIN_ID}`, VAULT_RPC_URL_DEVNET: upstream.url } });
    const vault = s.server.vault;
    vaultId = (await vault.manageVaults.create({ name: 'relay' })).id;
    apiKey = (await vault.manageVaults.createApiKey(vaultId)).apiKey;
    const principal = await vault.authenticate.execute(apiKey, vaultId);
    wallet = (await vault.createWallet.execute({ principal, name: 'relay' })).address;
    await vault.managePolicies.set(vaultId, { txChainIds: [String(CHAIN_ID)], txTo: [RECIPIENT], txMaxValue: '1000' });
    endpoint = `${s.url}/api/v1/vaults/${vaultId}/rpc`;
  });

  afterAll(async () => {
    await s?.stop();
    await upstream.stop();
  });

  beforeEach(() => {
    upstream.asked.length = 0;
    upstream.logsBytes = 100;
    upstream.declareLength = false;
  });

  it('refuses every method it does not allow with -32601 and ROUTE_NOT_FOUND, and the chain RPC is never asked', async () => {
    const refused = [
      'anvil_impersonateAccount',
      'eth_sendUnsignedTransaction',
      'anvil_setBalance',
      'hardhat_impersonateAccount',
      'admin_addPeer',
      'admin_nodeInfo',
      'debug_traceTransaction',
      'miner_start',
      'miner_setEtherbase',
      'txpool_content',
      'account_signTransaction',
      'personal_unlockAccount',
      'eth_coinbase',
      'evm_mine',
      'no_such_method',
    ];
    for (const method of refused) {
      const answer = await call(method, [wallet]);
      expect(answer.error, method).toMatchObject({ code: -32601, data: { code: 'ROUTE_NOT_FOUND' } });
      expect(answer.error!.message, method).toContain(`method ${method} is not supported`);
    }
    // The attack of issue 34, as one batch: impersonate the wallet, then move its ETH without a signature.
    const { body } = await post([
      { jsonrpc: '2.0', id: 1, method: 'anvil_impersonateAccount', params: [wallet] },
      { jsonrpc: '2.0', id: 2, method: 'eth_sendUnsignedTransaction', params: [{ from: wallet, to: STRANGER, value: '0xde0b6b3a7640000' }] },
    ]);
    expect((body as Answer[]).map((a) => a.error?.code)).toEqual([-32601, -32601]);
    expect(upstream.asked).toEqual([]);
  });

  it('passes the allowed reads on', async () => {
    expect((await call('eth_blockNumber')).result).toBe('0x10');
    expect(upstream.asked).toContain('eth_blockNumber');
  });

  it.each([
    ['chunked', false],
    ['with its Content-Length', true],
  ])('refuses a 10 MiB eth_getLogs answer (%s) at the per-call cap without reading it, and keeps serving', async (_how, declareLength) => {
    upstream.logsBytes = 10 * MiB;
    upstream.declareLength = declareLength;
    const answer = await call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
    expect(answer.error).toMatchObject({ code: -32000, data: { code: 'RPC_ANSWER_TOO_LARGE' } });
    expect(answer.error!.message).toBe(`eth_getLogs: the chain RPC's answer is over the relay's cap of ${RELAY_CALL_MAX_BYTES} bytes per call; ask for less (eth_getLogs: a narrower block range)`);
    // An answer under the cap passes, and the server still answers.
    upstream.logsBytes = 1000;
    expect(typeof (await call('eth_getLogs', [{}])).result).toBe('string');
    expect((await call('eth_blockNumber')).result).toBe('0x10');
  });

  it('caps a batch: answers past the batch cap are refused, naming it, those before it are answered', async () => {
    upstream.logsBytes = 900 * 1024;
    const batch = Array.from({ length: 6 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_getLogs', params: [{}] }));
    const { status, body } = await post(batch);
    expect(status).toBe(200);
    const answers = body as Answer[];
    const fit = Math.floor(RELAY_BATCH_MAX_BYTES / upstream.logsBytes);
    expect(fit).toBe(4);
    expect(answers.slice(0, fit).every((a) => typeof a.result === 'string')).toBe(true);
    for (const a of answers.slice(fit)) {
      expect(a.error).toMatchObject({ code: -32000, data: { code: 'RPC_ANSWER_TOO_LARGE' } });
      expect(a.error!.message).toMatch(new RegExp(`^eth_getLogs: the chain RPC's answers to this batch are over the relay's cap of ${RELAY_BATCH_MAX_BYTES} bytes per batch`));
    }
    // Another request has a budget of its own.
    expect(typeof (await call('eth_getLogs', [{}])).result).toBe('string');
  });

  it("refuses a transaction whose chainId is not the endpoint chain's, naming both, before any call to the chain", async () => {
    for (const method of ['eth_sendTransaction', 'eth_signTransaction']) {
      for (const chainId of ['0x1', 1, '11155111', 'devnet']) {
        const answer = await call(method, [{ from: wallet, to: RECIPIENT, value: '0x1', chainId }]);
        expect(answer.error, `${method} ${chainId}`).toMatchObject({ code: -32602, data: { code: 'INVALID_ARGUMENT' } });
        expect(answer.error!.message).toBe(`params[0].chainId: ${JSON.stringify(chainId)} is not the chain id of devnet (${CHAIN_ID}); this endpoint signs for devnet only`);
      }
    }
    expect(upstream.asked).toEqual([]);
  });

  it('takes the chain id from the configuration: a transaction given all else is signed with one call to the chain, its simulation', async () => {
    const tx = { from: wallet, to: RECIPIENT, value: '0x1', nonce: '0x0', gas: '0x5208', maxFeePerGas: '0x3b9aca00', maxPriorityFeePerGas: '0x1' };
    const bare = await call('eth_signTransaction', [tx]);
    const named = await call('eth_signTransaction', [{ ...tx, chainId: `0x${CHAIN_ID.toString(16)}` }]);
    expect(bare.result).toMatch(/^0x02/);
    expect(named.result).toBe(bare.result);
    expect(upstream.asked.filter((m) => m !== 'eth_chainId')).toEqual(['eth_call', 'eth_call']);
  });

  it('checks the policy before filling: a denied eth_sendTransaction costs no call to the chain, and is recorded as sign.denied', async () => {
    const noTx = "policy: no rule of this vault's policy allows this transaction";
    const denied = [
      [{ from: wallet, to: STRANGER, value: '0x1' }, `${noTx} (rule transactions: recipient ${STRANGER} is not in its contracts)`],
      [{ from: wallet, to: RECIPIENT, value: '0x3e9' }, `${noTx} (rule transactions: value 1001 wei is over its maxValue 1000)`],
      [{ from: wallet, to: RECIPIENT, data: '0xa9059cbb' }, `${noTx} (rule transactions: selector 0xa9059cbb is not in its selectors)`],
    ] as const;
    for (const [tx, rule] of denied) {
      const answer = await call('eth_sendTransaction', [tx]);
      expect(answer.error).toEqual({ code: -32000, message: rule, data: { code: 'POLICY_DENIED' } });
    }
    expect(upstream.asked).toEqual([]);
    const records = (await s.server.vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'sign.denied');
    expect(records.slice(-3).map((r) => r.details)).toEqual(
      denied.map(([tx, rule]) => ({
        chainId: String(CHAIN_ID),
        nonce: null,
        payload: 'transaction',
        rule,
        selector: 'data' in tx ? '0xa9059cbb' : null,
        to: tx.to,
        type: null,
        value: BigInt('value' in tx ? tx.value : 0).toString(),
        wallet,
      })),
    );
    // An unknown wallet is refused there too, before the chain is asked.
    expect((await call('eth_sendTransaction', [{ from: STRANGER, to: RECIPIENT, value: '0x1' }])).error?.data?.code).toBe('WALLET_NOT_FOUND');
    expect(upstream.asked).toEqual([]);
  });

  it('still fills an allowed transaction from the chain (the pre-check lets it through)', async () => {
    // The stand-in answers no fee reads: the fill's first read fails as the node's own error, after the pre-check passed.
    const answer = await call('eth_sendTransaction', [{ from: wallet, to: RECIPIENT, value: '0x1' }]);
    expect(answer.error).toEqual({ code: -32601, message: 'no' });
    expect(upstream.asked.filter((m) => m !== 'eth_chainId')[0]).toBe('eth_getTransactionCount');
  });

  it('counts its signatures under the vault\'s limits as every route does: the one past the limit is refused, recorded, and sent nowhere', async () => {
    await s.server.vault.managePolicies.addLimit(vaultId, { each: 'wallet', maxSigns: 1, per: '1h' });
    try {
      const tx = { from: wallet, to: RECIPIENT, value: '0x1', nonce: '0x5', gas: '0x5208', maxFeePerGas: '0x3b9aca00', maxPriorityFeePerGas: '0x1' };
      expect((await call('eth_signTransaction', [tx])).result).toMatch(/^0x02/);
      const refused = await call('eth_signTransaction', [{ ...tx, nonce: '0x6' }]);
      expect(refused.error).toEqual({
        code: -32000,
        message: expect.stringMatching(new RegExp(`^limit l1: at most 1 sign per 1h for wallet ${wallet} reached; retry after \\d+ s$`)),
        data: { code: 'SIGN_LIMIT_REACHED' },
      });
      // The first one's simulation only: the one past the limit is refused before it is simulated.
      expect(upstream.asked.filter((m) => m !== 'eth_chainId')).toEqual(['eth_call']);
      const [last] = (await s.server.vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'sign.denied').slice(-1);
      expect(last!.details).toMatchObject({ payload: 'transaction', rule: refused.error!.message });
    } finally {
      await s.server.vault.managePolicies.removeLimits(vaultId, null);
    }
  });
});
