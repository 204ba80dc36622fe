import { hashAuthorization, Transaction, Wallet } from 'ethers';
import { recoverAuthorizationAddress } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { readingPayloads } from '../support/read-payloads.js';
import type { Principal } from '../../src/application/access/principal.js';
import { parsePolicyDocument } from '../../src/domain/policy/policy-document.parse.js';
import { evaluatePolicy } from '../../src/domain/policy/policy-evaluation.js';
import { NO_FACTS } from '../../src/domain/policy/sign-intent.js';
import { toHex } from '../../src/domain/signing/signable-digest.js';
import { inProcessVault } from '../support/in-process-vault.js';
import { FixedClock } from '../support/movable-clock.js';

/**
 * EIP-7702 without a chain: the authorization digest as ethers and viem compute it, type-4 transactions
 * serialised as ethers reads them, and the policy's `authorization` kind (deny by default, chain id 0
 * only with anyChain) through the in-process API, held and released as the other kinds.
 */
const payloads = readingPayloads();
const DELEGATE = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B';
const OTHER = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const key = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

describe('the authorization digest and type-4 transactions', () => {
  it('is keccak256(0x05 ‖ rlp([chainId, address, nonce])) as ethers computes it, chain id 0 and large values included', () => {
    for (const [chainId, nonce] of [[1n, 12n], [0n, 0n], [31337n, 2n ** 64n - 2n], [2n ** 255n, 1n]] as const) {
      const { digest, facts } = payloads.authorizationDigest({ chainId: chainId.toString(), address: DELEGATE.toLowerCase(), nonce: `0x${nonce.toString(16)}` });
      expect(toHex(digest)).toBe(hashAuthorization({ chainId, address: DELEGATE, nonce }));
      expect(facts).toEqual({ chainId, address: DELEGATE, nonce });
    }
  });

  it('refuses what is not an authorization, naming the field', () => {
    expect(() => payloads.authorizationDigest({ address: DELEGATE, nonce: 0 })).toThrow('chainId: is required');
    expect(() => payloads.authorizationDigest({ chainId: 1, address: DELEGATE })).toThrow('nonce: is required');
    expect(() => payloads.authorizationDigest({ chainId: 1, address: 'nope', nonce: 0 })).toThrow('address');
    expect(() => payloads.authorizationDigest({ chainId: 1, address: DELEGATE, nonce: (2n ** 64n - 1n).toString() })).toThrow('nonce: must be at most');
    expect(() => payloads.authorizationDigest({ chainId: 1, address: DELEGATE, nonce: 0, extra: 1 })).toThrow('extra: is not a field of an authorization');
  });

  it('serialises a type-4 transaction ethers reads back whole, its authorization recovering the authority (viem)', async () => {
    const auth = key.authorizeSync({ chainId: 1n, address: DELEGATE, nonce: 3n });
    const tx = {
      chainId: 1,
      nonce: 9,
      to: OTHER,
      gas: 100000,
      maxFeePerGas: '2000000000',
      maxPriorityFeePerGas: '1000000000',
      authorizationList: [{ chainId: 1, address: DELEGATE, nonce: 3, yParity: auth.signature.yParity, r: auth.signature.r, s: auth.signature.s }],
    };
    const unsigned = payloads.unsignedTransaction(tx);
    expect(unsigned.facts.type).toBe('eip7702');
    const signature = key.signingKey.sign(unsigned.digest);
    const { serialized } = payloads.serializeSigned(unsigned, { r: Buffer.from(signature.r.slice(2), 'hex'), s: Buffer.from(signature.s.slice(2), 'hex'), v: signature.v as 27 | 28 });
    const parsed = Transaction.from(serialized);
    expect([parsed.type, parsed.to, parsed.from, parsed.authorizationList?.length]).toEqual([4, OTHER, key.address, 1]);
    const carried = parsed.authorizationList![0]!;
    const recovered = await recoverAuthorizationAddress({ authorization: { chainId: 1, address: DELEGATE, nonce: 3 }, signature: { r: carried.signature.r as `0x${string}`, s: carried.signature.s as `0x${string}`, yParity: carried.signature.yParity } });
    expect(recovered).toBe(key.address);
  });

  it('refuses a type-4 transaction without authorizations or recipient, and an authorizationList on another type', () => {
    const base = { type: 'eip7702', chainId: 1, nonce: 0, to: OTHER, gas: 50000, maxFeePerGas: 2, maxPriorityFeePerGas: 1 };
    expect(() => payloads.unsignedTransaction({ ...base, authorizationList: [] })).toThrow('authorizationList: must be a non-empty list');
    const one = [{ chainId: 1, address: DELEGATE, nonce: 0, yParity: 0, r: '0x01', s: '0x02' }];
    expect(() => payloads.unsignedTransaction({ ...base, to: null, authorizationList: one })).toThrow('to: an eip7702 transaction cannot create a contract');
    expect(() => payloads.unsignedTransaction({ ...base, type: 'eip1559', authorizationList: one })).toThrow('authorizationList: only an eip7702 transaction carries one');
    expect(() => payloads.unsignedTransaction({ ...base, authorizationList: [{ ...one[0], yParity: 2 }] })).toThrow('authorizationList[0].yParity');
  });
});

describe('the policy kind authorization', () => {
  const WALLET = key.address;
  const intent = (chainId: string, contract = DELEGATE) => ({ ...NO_FACTS, kind: 'authorization' as const, wallet: WALLET, chainId, chain: chainId === '1' ? 'mainnet' : null, contract });
  const doc = (rules: unknown[]) => parsePolicyDocument({ version: 2, rules }, { chains: ['mainnet'] });

  it('is deny by default: a rule allows one only when it names the kind, and its contracts are the delegates', () => {
    const anyKind = doc([{ id: 'everything', effect: 'allow', contracts: [DELEGATE] }]);
    expect(evaluatePolicy(anyKind, intent('1')).decision).toBe('deny');
    expect(evaluatePolicy(null, intent('1')).decision).toBe('deny');
    const named = doc([{ id: 'delegates', effect: 'allow', kinds: ['authorization'], contracts: [DELEGATE] }]);
    expect(evaluatePolicy(named, intent('1')).decision).toBe('allow');
    expect(evaluatePolicy(named, intent('1', OTHER)).message).toContain(`contract ${OTHER} is not in its contracts`);
  });

  it('allows chain id 0 (every chain) only under a rule with anyChain, and a deny naming chains holds it too', () => {
    const named = doc([{ id: 'delegates', effect: 'allow', kinds: ['authorization'], contracts: [DELEGATE] }]);
    expect(evaluatePolicy(named, intent('0')).message).toContain('chain id 0 (every chain) needs a rule with anyChain: true');
    const anyChain = doc([{ id: 'anywhere', effect: 'allow', kinds: ['authorization'], contracts: [DELEGATE], anyChain: true }]);
    expect(evaluatePolicy(anyChain, intent('0')).decision).toBe('allow');
    const deniedOnMainnet = doc([...anyChain.rules, { id: 'not-mainnet', effect: 'deny', chains: ['mainnet'] }]);
    expect(evaluatePolicy(deniedOnMainnet, intent('0')).decision).toBe('deny');
    expect(() => doc([{ id: 'x', effect: 'allow', anyChain: true }])).toThrow('rules[0].anyChain: is for rules of "kinds": ["authorization"] only');
    expect(() => doc([{ id: 'x', effect: 'allow', kinds: ['authorization'], chains: ['mainnet'], anyChain: true }])).toThrow('a rule for every chain names no chains');
  });
});

describe('sign-authorization through the in-process API', () => {
  const clock = new FixedClock(new Date('2026-06-01T09:00:00Z'));
  const v = inProcessVault(clock, 'authorization');

  it('signs what the policy allows (the authority recovers), holds what a hold rule holds, and releases it on its quorum', async () => {
    const { vault } = v;
    const vaultId = (await vault.manageVaults.create({ name: 'a' })).id;
    const principal: Principal = await vault.authenticate.execute((await vault.manageVaults.createApiKey(vaultId)).apiKey, vaultId);
    const address = (await vault.createWallet.execute({ principal, name: 'w' })).address;
    await vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [
        { id: 'delegate', effect: 'allow', kinds: ['authorization'], contracts: [DELEGATE] },
        { id: 'other', effect: { hold: { required: 1 } }, kinds: ['authorization'], contracts: [OTHER] },
      ],
    });
    const signed = await vault.signAuthorization.execute({ principal, address, authorization: { chainId: 1, address: DELEGATE, nonce: 5 } });
    if ('approval' in signed) throw new Error('held');
    expect(await recoverAuthorizationAddress({ authorization: { chainId: 1, address: DELEGATE, nonce: 5 }, signature: signed.signature })).toBe(address);
    const held = await vault.signAuthorization.execute({ principal, address, authorization: { chainId: 1, address: OTHER, nonce: 5 } });
    if (!('approval' in held)) throw new Error('not held');
    expect([held.approval.contract, held.approval.chain]).toEqual([OTHER, 'ethereum']);
    const approver = await vault.authenticate.execute((await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'] })).apiKey, vaultId);
    const approved = await vault.voteOnApproval.execute({ principal: approver, id: held.approval.id, vote: 'approve' });
    expect(approved.status).toBe('approved');
    const result = JSON.parse(approved.result!) as { signature: `0x${string}` };
    expect(await recoverAuthorizationAddress({ authorization: { chainId: 1, address: OTHER, nonce: 5 }, signature: result.signature })).toBe(address);
  });

  it('counts under the vault limits as every signature does: the one past the limit is SIGN_LIMIT_REACHED', async () => {
    const { vault } = v;
    const vaultId = (await vault.manageVaults.create({ name: 'limited' })).id;
    const principal: Principal = await vault.authenticate.execute((await vault.manageVaults.createApiKey(vaultId)).apiKey, vaultId);
    const address = (await vault.createWallet.execute({ principal, name: 'w' })).address;
    await vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [{ id: 'delegate', effect: 'allow', kinds: ['authorization'], contracts: [DELEGATE] }],
      limits: [{ id: 'two', kinds: ['authorization'], each: 'wallet', maxSigns: 2, per: '1h' }],
    });
    const sign = (nonce: number) => vault.signAuthorization.execute({ principal, address, authorization: { chainId: 1, address: DELEGATE, nonce } });
    await sign(1);
    await sign(2);
    await expect(sign(3)).rejects.toMatchObject({ code: 'SIGN_LIMIT_REACHED' });
  });
});
