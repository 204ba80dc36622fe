import { createWalletClient, custom, type Account, type Chain, type Transport, type WalletClient } from 'viem';
import { mainnet } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import { ApprovalPendingError, VaultError, vaultErrorOf, type VaultClient } from '../../client/index.js';
import { vaultAccount } from '../../client/viem-account.js';

/** The function of the Signable example, written `as const` as an application's ABI usually is. */
const MINT = {
  type: 'function',
  name: 'mint',
  stateMutability: 'nonpayable',
  inputs: [
    { name: 'to', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'sig', type: 'tuple', components: [{ name: 'nonce', type: 'bytes32' }, { name: 'r', type: 'bytes32' }, { name: 's', type: 'bytes32' }, { name: 'v', type: 'uint8' }] },
  ],
  outputs: [],
} as const;

/**
 * The strict-TypeScript probe of issue 39 (item 7): `npm test` type-checks this file under the repository's
 * strict settings. The answer's `args` are typed as the ABI item's inputs, so they go into viem's
 * writeContract without a cast (with `unknown[]` this was TS2322).
 */
export async function probe(vault: VaultClient, wallet: WalletClient<Transport, Chain, Account>, contract: `0x${string}`): Promise<`0x${string}`> {
  const { args } = await vault.sign({ chain: 'local', contract, sender: wallet.account.address, abi: MINT, args: [wallet.account.address, 1000n] });
  const amount: bigint = args[1];
  void amount;
  return wallet.writeContract({ address: contract, abi: [MINT], functionName: 'mint', args });
}

describe('the client with viem: typed answers and refusals a program can read', () => {
  const refusal = new VaultError('sign-transaction: denied by rule no-transfers', { status: 403, code: 'POLICY_DENIED', reason: 'http', requestId: 'r-1' });
  const refusing = { signMessage: () => Promise.reject(refusal), signTypedData: () => Promise.reject(refusal), signTransaction: () => Promise.reject(refusal) };
  const node = custom({
    async request({ method }: { method: string }) {
      const answers: Record<string, unknown> = { eth_chainId: '0x1', eth_getTransactionCount: '0x0', eth_estimateGas: '0x5208', eth_maxPriorityFeePerGas: '0x1', eth_getBlockByNumber: { baseFeePerGas: '0x1', number: '0x1' } };
      return answers[method] ?? null;
    },
  });

  it("viem's wrapper of a refused transaction says the vault's code and message, and vaultErrorOf finds the VaultError", async () => {
    const account = vaultAccount({ client: refusing as never, address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' });
    const wallet = createWalletClient({ account, chain: mainnet, transport: node });
    const error = (await wallet.sendTransaction({ to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1n }).catch((e: unknown) => e)) as Error;
    expect(error).not.toBeInstanceOf(VaultError);
    // Before: "An error occurred." Now the vault's refusal, code first.
    expect(error.message).toContain('POLICY_DENIED (403): sign-transaction: denied by rule no-transfers');
    expect(vaultErrorOf(error)).toMatchObject({ code: 'POLICY_DENIED', status: 403, requestId: 'r-1' });
    expect(vaultErrorOf(new Error('other'))).toBeUndefined();
  });

  it('every error class has its code: a held request is APPROVAL_PENDING', () => {
    const held = new ApprovalPendingError({ id: 'a-1', approvals: 0, required: 2, expires: '2026-11-28T00:00:00.000Z' } as never, 'r-2');
    expect([held.code, held.status, held.shortMessage]).toEqual(['APPROVAL_PENDING', 202, expect.stringMatching(/^APPROVAL_PENDING \(202\): sign: held for approval a-1/)]);
  });
});
