import type { Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonRpcChainReader } from '../../adapters/chain/json-rpc.chain-reader.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { deploy, startAnvil, type Anvil } from '../support/anvil.js';
import { freePort } from '../support/cli.js';

const UNIQ = `0x${'7e'.repeat(32)}`;
const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

describe('JSON-RPC chain reader against anvil', () => {
  let anvil: Anvil;
  let target: Contract;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 11155111 });
    target = await deploy(anvil, 'SignableTarget', [A, UNIQ]);
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it('reads uniq() and signer(), EIP-55, only for chains with an RPC', async () => {
    const reader = new JsonRpcChainReader({ rpcUrls: { sepolia: anvil.rpcUrl } });
    expect(reader.hasRpc('sepolia')).toBe(true);
    expect(reader.hasRpc('polygon')).toBe(false);
    expect(reader.hasRpc('local')).toBe(false);
    expect(await reader.readSignable('sepolia', String(target.target))).toEqual({ uniq: UNIQ, signer: A });
    await reader.close();
  });

  it('refuses an RPC whose chain id is not the named chain', async () => {
    const reader = new JsonRpcChainReader({ rpcUrls: { ethereum: anvil.rpcUrl } });
    await expect(reader.readSignable('ethereum', String(target.target))).rejects.toMatchObject({
      code: ErrorCode.CHAIN_UNAVAILABLE,
      message: 'chain ethereum: RPC reports chain id 11155111, expected 1',
    });
    await reader.close();
  });

  it('says which chain is unreachable, quickly', async () => {
    const reader = new JsonRpcChainReader({ rpcUrls: { fuji: `http://127.0.0.1:${await freePort()}` }, timeoutMs: 2000 });
    await expect(reader.readSignable('fuji', String(target.target))).rejects.toMatchObject({
      code: ErrorCode.CHAIN_UNAVAILABLE,
      message: expect.stringMatching(/^chain fuji: /),
    });
    await reader.close();
  });

  it('an address without a signable contract is an invalid argument naming it', async () => {
    const reader = new JsonRpcChainReader({ rpcUrls: { sepolia: anvil.rpcUrl } });
    await expect(reader.readSignable('sepolia', B)).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringMatching(/does not answer uniq\(\)\/signer\(\)/),
    });
    await reader.close();
  });

  it('serves a cached signer within the TTL and the rotated one after it', async () => {
    // The TTL runs on the reader's clock, moved here by hand: no sleep, whatever the machine's load.
    let now = 0;
    const reader = new JsonRpcChainReader({ rpcUrls: { sepolia: anvil.rpcUrl }, cacheTtlMs: 300, now: () => new Date(now) });
    const rotating = await deploy(anvil, 'SignableTarget', [A, UNIQ]);
    expect((await reader.readSignable('sepolia', String(rotating.target))).signer).toBe(A);
    await (await (rotating.connect(anvil.account(0)) as Contract).getFunction('setSigner')(B)).wait();
    now = 299;
    expect((await reader.readSignable('sepolia', String(rotating.target))).signer).toBe(A);
    expect((await reader.readSignable('sepolia', String(rotating.target), { fresh: true })).signer).toBe(B);
    now = 300;
    expect((await reader.readSignable('sepolia', String(rotating.target))).signer).toBe(B);
    await reader.close();
  });
});
