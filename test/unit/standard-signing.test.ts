import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseTransaction, recoverMessageAddress, recoverTransactionAddress, recoverTypedDataAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFileKeyStore } from '../../adapters/keystore/local-file/index.js';
import { createVault, type Vault } from '../../adapters/main/create-vault.js';
import { TOKENS } from '../../adapters/main/tokens.js';
import type { Principal } from '../../src/application/access/principal.js';
import { EXPIRY_TTL_MS } from '../../src/domain/wallet.js';
import type { SignPolicyInput } from '../../src/domain/sign-policy.js';
import type { AuditEvent, AuditLog } from '../../src/ports/audit-log.port.js';
import { inMemoryPersistence } from '../support/in-memory.persistence.js';
import { TEST_MASTER_KEY } from '../support/local-key.js';
import { FixedClock } from '../support/movable-clock.js';
import { asJson, permit } from '../support/typed-data-fixtures.js';
import { signedNow } from '../support/signed.js';

/**
 * SignMessage, SignTypedData and SignTransaction through the in-process API (vault.signMessage and so
 * on), over the in-memory persistence and a real local-file key store: what they sign recovers, in viem,
 * to the vault wallet; what the policy refuses is a 403 on record; every signature is on record first.
 */
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const STRANGER = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';

let dir: string;
let vault: Vault;
const clock = new FixedClock(new Date('2026-06-01T00:00:00Z'));
/** Fails the next appends of these actions (the audit log as the vault sees it). */
const failing = new Set<string>();
let records: AuditEvent[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-standard-signing-'));
  const persistence = inMemoryPersistence();
  records = [];
  const auditLog: AuditLog = {
    append: async (event) => {
      if (failing.has(event.action)) throw new Error(`audit store down for ${event.action}`);
      await persistence.auditLog.append(event);
      records.push(event);
    },
    list: (q) => persistence.auditLog.list(q),
  };
  vault = await createVault({
    persistence,
    keyStores: [localFileKeyStore({ keysDir: dir, masterKeyHex: TEST_MASTER_KEY, signingThread: false })],
    jobs: false,
    clock,
    configure: (c) => {
      c.rebind(TOKENS.AUDIT_LOG).toConstantValue(auditLog);
    },
  });
});

afterAll(async () => {
  await vault?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A vault of its own with one wallet, under `policy` (none when omitted). */
async function aVaultWith(policy?: SignPolicyInput): Promise<{ principal: Principal; address: `0x${string}` }> {
  const created = await vault.manageVaults.create({ name: 'standard' });
  const principal = await vault.authenticate.execute((await vault.manageVaults.createApiKey(created.id)).apiKey, created.id);
  const wallet = await vault.createWallet.execute({ principal, name: 'signer' });
  if (policy) await vault.managePolicies.set(created.id, policy);
  return { principal, address: wallet.address as `0x${string}` };
}

const lastRecord = () => records.at(-1)!;

const PERMIT = (owner: string) =>
  permit({ name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: TOKEN }, { owner, spender: STRANGER, value: 1000n, nonce: 0n, deadline: 2n ** 255n });

const TRANSFER_TX = {
  type: 'eip1559',
  chainId: '31337',
  nonce: '3',
  to: TOKEN.toLowerCase(),
  value: '0',
  data: `0xa9059cbb${'00'.repeat(64)}`,
  gas: '60000',
  maxFeePerGas: '2000000000',
  maxPriorityFeePerGas: '1000000000',
};

describe('deny by default', () => {
  it('signs none of the three for a vault without a policy, each refusal a 403 on record naming the rule', async () => {
    const { principal, address } = await aVaultWith();
    await expect(vault.signMessage.execute({ principal, address, message: 'hello' })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: "policy: this vault has no policy document, and without one only Sign calls are signed (wallet-vault policies apply)",
    });
    expect(lastRecord()).toMatchObject({ action: 'sign.denied', actor: `api-key:${principal.apiKeyId}`, vaultId: principal.vaultId, subject: address, details: { payload: 'message', wallet: address, rule: "policy: this vault has no policy document, and without one only Sign calls are signed (wallet-vault policies apply)" } });
    await expect(vault.signTypedData.execute({ principal, address, typedData: asJson(PERMIT(address)) })).rejects.toMatchObject({ code: 'POLICY_DENIED', message: "policy: this vault has no policy document, and without one only Sign calls are signed (wallet-vault policies apply)" });
    expect(lastRecord()).toMatchObject({ action: 'sign.denied', details: { payload: 'typed-data', chainId: '31337', verifyingContract: TOKEN, name: 'USD Coin', primaryType: 'Permit' } });
    await expect(vault.signTransaction.execute({ principal, address, transaction: TRANSFER_TX })).rejects.toMatchObject({ code: 'POLICY_DENIED', message: "policy: this vault has no policy document, and without one only Sign calls are signed (wallet-vault policies apply)" });
    expect(lastRecord()).toMatchObject({ action: 'sign.denied', details: { payload: 'transaction', chainId: '31337', to: TOKEN, selector: '0xa9059cbb', value: '0', nonce: 3, type: 'eip1559' } });
  });

  it('keeps refusing what the policy does not name once a vault allows some of it', async () => {
    const { principal, address } = await aVaultWith({ txChainIds: ['31337'], txTo: [TOKEN], txSelectors: ['0xa9059cbb'], txMaxValue: '100', typedDataContracts: [`31337:${TOKEN}`] });
    const refused = async (transaction: Record<string, unknown>, rule: string) => {
      await expect(vault.signTransaction.execute({ principal, address, transaction })).rejects.toMatchObject({ code: 'POLICY_DENIED', message: rule });
      expect(lastRecord()).toMatchObject({ action: 'sign.denied', details: { payload: 'transaction', rule } });
    };
    const none = "policy: no rule of this vault's policy allows this transaction";
    await refused({ ...TRANSFER_TX, to: STRANGER }, `${none} (rule transactions: recipient ${STRANGER} is not in its contracts)`);
    await refused({ ...TRANSFER_TX, value: '101' }, `${none} (rule transactions: value 101 wei is over its maxValue 100)`);
    await refused({ ...TRANSFER_TX, chainId: 1 }, `${none} (rule transactions: chain ethereum is not in its chains)`);
    await refused({ ...TRANSFER_TX, to: undefined }, `${none} (rule transactions: the request has no recipient)`);
    const foreign = { ...PERMIT(address), domain: { ...PERMIT(address).domain, verifyingContract: STRANGER } };
    await expect(vault.signTypedData.execute({ principal, address, typedData: asJson(foreign) })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: `policy: no rule of this vault's policy allows this typed-data (rule typed-data-1: verifying contract ${STRANGER} is not in its contracts)`,
    });
    await expect(vault.signMessage.execute({ principal, address, message: 'hello' })).rejects.toMatchObject({ code: 'POLICY_DENIED' });
  });
});

describe('what a vault allows is signed by its wallet', () => {
  it('signs a personal message (text and raw bytes) that recovers to the wallet, on record', async () => {
    const { principal, address } = await aVaultWith({ messages: true });
    const { signature } = await signedNow(vault.signMessage.execute({ principal, address: address.toLowerCase(), message: 'Sign in to example.org' }));
    expect(signature).toMatch(/^0x[0-9a-f]{128}1[bc]$/);
    expect(await recoverMessageAddress({ message: 'Sign in to example.org', signature })).toBe(address);
    expect(lastRecord()).toMatchObject({ action: 'sign.message', subject: address, details: { wallet: address, digest: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });
    const raw = await signedNow(vault.signMessage.execute({ principal, address, message: { raw: '0xdeadbeef' } }));
    expect(await recoverMessageAddress({ message: { raw: '0xdeadbeef' }, signature: raw.signature })).toBe(address);
  });

  it('signs an EIP-2612 permit for an allowed domain, recovering to the wallet', async () => {
    const { principal, address } = await aVaultWith({ typedDataContracts: [`31337:${TOKEN.toLowerCase()}`], typedDataNames: [`31337:${TOKEN}=USD Coin`] });
    const { signature } = await signedNow(vault.signTypedData.execute({ principal, address, typedData: asJson(PERMIT(address)) }));
    expect(await recoverTypedDataAddress({ ...PERMIT(address), signature })).toBe(address);
    expect(lastRecord()).toMatchObject({ action: 'sign.typed-data', details: { wallet: address, chainId: '31337', verifyingContract: TOKEN, name: 'USD Coin', primaryType: 'Permit' } });
  });

  it('signs an allowed transaction, serialised for eth_sendRawTransaction, recovering to the wallet', async () => {
    const { principal, address } = await aVaultWith({ txChainIds: ['31337'], txTo: [TOKEN], txSelectors: ['0xa9059cbb'] });
    const signed = await signedNow(vault.signTransaction.execute({ principal, address, transaction: { ...TRANSFER_TX, from: address.toLowerCase() } }));
    expect(await recoverTransactionAddress({ serializedTransaction: signed.serialized as `0x02${string}` })).toBe(address);
    expect(parseTransaction(signed.serialized)).toMatchObject({ chainId: 31337, nonce: 3, to: TOKEN.toLowerCase(), type: 'eip1559' });
    expect(lastRecord()).toMatchObject({ action: 'sign.transaction', details: { wallet: address, hash: signed.hash, chainId: '31337', to: TOKEN, selector: '0xa9059cbb', value: '0', nonce: 3, type: 'eip1559' } });
  });

  it('refuses a `from` that is not the signing wallet, before any policy or key', async () => {
    const { principal, address } = await aVaultWith({ txChainIds: ['31337'], txTo: [TOKEN], txSelectors: ['0xa9059cbb'] });
    const before = records.length;
    await expect(vault.signTransaction.execute({ principal, address, transaction: { ...TRANSFER_TX, from: STRANGER } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: `from: ${STRANGER} is not the signing wallet ${address}`,
    });
    expect(records.length).toBe(before);
  });
});

describe('the wallet is one of the caller vault’s, alive', () => {
  it("answers WALLET_NOT_FOUND for another vault's wallet, an unknown one and an expired one", async () => {
    const policy = { messages: true };
    const mine = await aVaultWith(policy);
    const theirs = await aVaultWith(policy);
    await expect(vault.signMessage.execute({ principal: mine.principal, address: theirs.address, message: 'hi' })).rejects.toMatchObject({ code: 'WALLET_NOT_FOUND' });
    await expect(vault.signMessage.execute({ principal: mine.principal, address: STRANGER, message: 'hi' })).rejects.toMatchObject({ code: 'WALLET_NOT_FOUND' });
    await expect(vault.signMessage.execute({ principal: mine.principal, address: 'me', message: 'hi' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^address: /) });

    await vault.signMessage.execute({ principal: mine.principal, address: mine.address, message: 'hi' });
    await vault.expireWallet.execute(mine.principal, mine.address);
    // Expiring, not yet expired: it still signs, as it does for Sign.
    await vault.signMessage.execute({ principal: mine.principal, address: mine.address, message: 'hi' });
    clock.advance(EXPIRY_TTL_MS);
    await expect(vault.signMessage.execute({ principal: mine.principal, address: mine.address, message: 'hi' })).rejects.toMatchObject({ code: 'WALLET_NOT_FOUND' });
  });
});

describe('a signature is on record before it is returned', () => {
  it.each<[string, string, (p: Principal, address: string) => Promise<unknown>]>([
    ['a message', 'sign.message', (principal, address) => vault.signMessage.execute({ principal, address, message: 'hi' })],
    ['typed data', 'sign.typed-data', (principal, address) => vault.signTypedData.execute({ principal, address, typedData: asJson(PERMIT(address)) })],
    ['a transaction', 'sign.transaction', (principal, address) => vault.signTransaction.execute({ principal, address, transaction: TRANSFER_TX })],
  ])('returns no signature of %s when its audit record cannot be written', async (_what, action, sign) => {
    const { principal, address } = await aVaultWith({ messages: true, typedDataContracts: [`31337:${TOKEN}`], txChainIds: ['31337'], txTo: [TOKEN], txSelectors: ['0xa9059cbb'] });
    failing.add(action);
    try {
      await expect(sign(principal, address)).rejects.toThrow(`audit store down for ${action}`);
    } finally {
      failing.delete(action);
    }
    await expect(sign(principal, address)).resolves.toBeDefined();
    expect(lastRecord().action).toBe(action);
  });
});

describe('input errors name the field', () => {
  it('refuses a malformed payload as INVALID_ARGUMENT before looking for the wallet', async () => {
    const { principal } = await aVaultWith({ messages: true });
    await expect(vault.signMessage.execute({ principal, address: STRANGER, message: 7 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'message: must be a string or {"raw": "0x…"}' });
    await expect(vault.signTransaction.execute({ principal, address: STRANGER, transaction: { ...TRANSFER_TX, chainId: undefined } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'chainId: is required' });
    await expect(vault.signTypedData.execute({ principal, address: STRANGER, typedData: { ...asJson(PERMIT(STRANGER)), primaryType: 'Mail' } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'primaryType: "Mail" is not a type in types' });
  });
});
