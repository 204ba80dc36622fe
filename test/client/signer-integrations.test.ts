import { describe, expect, it } from 'vitest';
import { VaultSigner } from '../../client/ethers-signer.js';
import type { StandardSigningClient } from '../../client/standard-signing.js';
import { vaultAccount } from '../../client/viem-account.js';

const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const SIGNATURE = `0x${'11'.repeat(65)}` as const;

/** A client that records what the integrations send the vault, and answers as the vault would. */
function recordingClient() {
  const sent: { call: string; address: string; payload: unknown }[] = [];
  const client: StandardSigningClient = {
    signMessage: async (address, payload) => (sent.push({ call: 'message', address, payload }), { signature: SIGNATURE }),
    signTypedData: async (address, payload) => (sent.push({ call: 'typed-data', address, payload }), { signature: SIGNATURE }),
    signTransaction: async (address, payload) => (sent.push({ call: 'transaction', address, payload }), { serialized: '0x02ab', hash: `0x${'22'.repeat(32)}` }),
  };
  return { client, sent };
}

describe('what the viem account and the ethers signer send the vault', () => {
  it('viem: quantities as decimal strings, the type named, bytes of a raw message as hex; the serialised answer returned', async () => {
    const { client, sent } = recordingClient();
    const account = vaultAccount({ client, address: ADDRESS });
    expect(await account.signTransaction({ chainId: 1, nonce: 3, to: ADDRESS, value: 2n ** 70n, gas: 21000n, maxFeePerGas: 5n, maxPriorityFeePerGas: 1n })).toBe('0x02ab');
    await account.signMessage({ message: { raw: new Uint8Array([1, 2, 255]) } });
    expect(sent.map((s) => s.payload)).toEqual([
      { type: 'eip1559', chainId: 1, nonce: 3, to: ADDRESS, value: (2n ** 70n).toString(), gas: '21000', maxFeePerGas: '5', maxPriorityFeePerGas: '1' },
      { raw: '0x0102ff' },
    ]);
  });

  it("viem: a chain's own serializer is refused, not signed as a plain transaction", async () => {
    const { client, sent } = recordingClient();
    const account = vaultAccount({ client, address: ADDRESS });
    const sign = account.signTransaction as (tx: object, options: object) => Promise<string>;
    await expect(sign({ chainId: 10, nonce: 0, gas: 1n, gasPrice: 1n }, { serializer: () => '0x' })).rejects.toThrow(/chain's own serialisation/);
    expect(sent).toEqual([]);
  });

  it('ethers: gasLimit sent as gas, a legacy type named, any BigNumberish as a decimal string, from checked', async () => {
    const { client, sent } = recordingClient();
    const signer = new VaultSigner(client, ADDRESS.toLowerCase());
    expect(signer.address).toBe(ADDRESS);
    await signer.signTransaction({ type: 0, chainId: '0x1', nonce: 7, to: ADDRESS, value: '1000', gasLimit: 21000n, gasPrice: 3, from: ADDRESS });
    expect(sent[0]!.payload).toEqual({ type: 'legacy', chainId: '1', nonce: '7', to: ADDRESS, from: ADDRESS, value: '1000', gas: '21000', gasPrice: '3' });
    await expect(signer.signTransaction({ chainId: 1, from: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' })).rejects.toThrow(/is not this signer's address/);
    await expect(signer.signTransaction({ chainId: 1, type: 3 })).rejects.toThrow(/legacy \(0\), eip2930 \(1\), eip1559 \(2\) and eip7702 \(4\)/);
    expect(sent).toHaveLength(1);
  });

  it('ethers: typed data sent with its primary type and without EIP712Domain, bigints as decimal strings', async () => {
    const { client, sent } = recordingClient();
    const signer = new VaultSigner(client, ADDRESS);
    await signer.signTypedData({ name: 'T', chainId: 1n }, { Mail: [{ name: 'amount', type: 'uint256' }] }, { amount: 10n ** 30n });
    expect(sent[0]).toEqual({
      call: 'typed-data',
      address: ADDRESS,
      payload: { domain: { name: 'T', chainId: '1' }, types: { Mail: [{ name: 'amount', type: 'uint256' }] }, primaryType: 'Mail', message: { amount: (10n ** 30n).toString() } },
    });
  });
});
