import type { Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JsonRpcChainReader } from '../../adapters/chain/json-rpc.chain-reader.js';
import { deploy, startAnvil, type Anvil } from '../support/anvil.js';

const UNIQ = `0x${'1d'.repeat(32)}`;
const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

/** Issue 3: "a signer rotated on-chain takes effect within 30 s", with the reader as the service builds it. */
describe('signer rotation with the default chain reader cache', () => {
  let anvil: Anvil;
  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 11155111 });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await anvil?.stop();
  });

  it('serves the rotated signer once 30 s have passed', async () => {
    const reader = new JsonRpcChainReader({ rpcUrls: { sepolia: anvil.rpcUrl } });
    const target = await deploy(anvil, 'SignableTarget', [A, UNIQ]);
    const real = Date.now.bind(Date);
    let offset = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => real() + offset);
    try {
      expect((await reader.readSignable('sepolia', String(target.target))).signer).toBe(A);
      await (await (target.connect(anvil.account(0)) as Contract).getFunction('setSigner')(B)).wait();
      // Cached: proves the cache is on, so the next assertion is about its lifetime.
      expect((await reader.readSignable('sepolia', String(target.target))).signer).toBe(A);
      offset = 30_000;
      expect((await reader.readSignable('sepolia', String(target.target))).signer).toBe(B);
    } finally {
      vi.restoreAllMocks();
      await reader.close();
    }
  });
});
