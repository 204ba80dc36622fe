import { describe, expect, it } from 'vitest';
import { APPROVAL_PENDING, JsonRpcSigner, type JsonRpcSigners } from '../../src/application/signing/json-rpc.use-case.js';
import type { Approval } from '../../src/domain/approval.js';
import type { ChainRpc } from '../../src/ports/chain-rpc.port.js';

/*
 * A request a hold rule holds has no result for JSON-RPC to answer: it is a JSON-RPC error whose data names
 * the approval (`data.code` APPROVAL_PENDING), for every signing method; an eth_sendTransaction held sends nothing.
 */
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const approval = {
  id: '01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62',
  status: 'pending',
  required: 2,
  approvals: 0,
  ruleId: 'four-eyes',
  expires: new Date('2026-06-02T09:30:00Z'),
} as Approval;
const held = async () => ({ approval });

describe('JSON-RPC answers a held request with APPROVAL_PENDING', () => {
  const sent: string[] = [];
  const chains: ChainRpc = {
    chainsWithRpc: () => ['local'],
    chainIdOf: () => 31337n,
    relay: async (_chain, method) => {
      sent.push(method);
      return { result: '0x1', bytes: 3 };
    },
  };
  const signers: JsonRpcSigners = {
    listWallets: { execute: async () => ({ page: [{ address: WALLET }] }) },
    signMessage: { execute: held },
    signTypedData: { execute: held },
    signTransaction: { execute: held, precheckTransaction: async () => undefined },
  };
  const rpc = new JsonRpcSigner(signers, chains);
  const principal = { apiKeyId: 'k', vaultId: 'v', roles: ['signer'] as const };
  const tx = { from: WALLET, to: WALLET, value: '0x0', gas: '0x5208', gasPrice: '0x1', nonce: '0x0' };

  it.each([
    ['personal_sign', ['0x68656c6c6f', WALLET]],
    ['eth_sign', [WALLET, '0x68656c6c6f']],
    ['eth_signTypedData_v4', [WALLET, '{}']],
    ['eth_signTransaction', [tx]],
    ['eth_sendTransaction', [tx]],
  ])('%s', async (method, params) => {
    sent.length = 0;
    const answer = await rpc.execute({ principal, chain: 'local', call: { method, params } });
    expect(answer).toEqual({
      error: {
        code: -32000,
        message: `held for approval ${approval.id} (0 of 2 approvals, expires 2026-06-02T09:30:00.000Z); nothing is signed yet`,
        data: { code: APPROVAL_PENDING, approval: { id: approval.id, status: 'pending', required: 2, approvals: 0, expires: '2026-06-02T09:30:00.000Z', rule: 'four-eyes' } },
      },
    });
    expect(sent).not.toContain('eth_sendRawTransaction');
  });
});
