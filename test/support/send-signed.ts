import { expect } from 'vitest';
import type { Anvil } from './anvil.js';

/**
 * Has a vault wallet sign a transaction at its next nonce (`sign`, through whichever interface), sends it
 * with eth_sendRawTransaction and waits for its receipt; checks the hash and the sender on the way.
 */
export async function signAndSend(anvil: Anvil, address: string, sign: (nonce: number) => Promise<{ serialized: string; hash: string }>) {
  const nonce = await anvil.provider.getTransactionCount(address, 'pending');
  const signed = await sign(nonce);
  const hash = await anvil.provider.send('eth_sendRawTransaction', [signed.serialized]);
  expect(hash).toBe(signed.hash);
  const receipt = await anvil.provider.waitForTransaction(hash);
  expect(receipt?.from).toBe(address);
  return receipt!;
}
