import { keccak256, parseTransaction, recoverMessageAddress, recoverTransactionAddress, recoverTypedDataAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { VaultClient, VaultError } from '../../client/index.js';
import { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { permit } from '../support/typed-data-fixtures.js';

const SECRET = 'client-test-secret-0123456789abcdef';
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

/**
 * The client's signMessage, signTypedData and signTransaction against the real server, with and without
 * VAULT_AUTH_SECRET_KEY: viem's own values (bigints included) go in as they are, and what comes back is
 * recovered to the wallet by viem.
 */
for (const secured of [false, true]) {
  describe(`VaultClient standard signing (${secured ? 'with' : 'without'} VAULT_AUTH_SECRET_KEY)`, () => {
    let s: TestServer;
    let vaultId: string;
    let vault: VaultClient;
    let wallet: Hex;

    beforeAll(async () => {
      s = await startTestServer({ env: secured ? { VAULT_AUTH_SECRET_KEY: SECRET } : {} });
      vaultId = (await s.createVault({ name: 'client-standard' })).id;
      vault = new VaultClient({ baseUrl: s.url, vaultId, apiKey: (await s.createApiKey(vaultId)).apiKey, ...(secured ? { authSecret: SECRET } : {}), retryDelayMs: 0 });
      wallet = (await vault.createWallet('signer')).address;
    });
    afterAll(() => s?.stop());

    it('is refused with POLICY_DENIED (403) until the policy allows it', async () => {
      const error = await vault.signMessage(wallet, 'hello').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VaultError);
      expect(error).toMatchObject({
        status: 403,
        code: 'POLICY_DENIED',
        message: 'policy: this vault has no policy document, and without one only Sign calls are signed (wallet-vault policies apply)',
      });
    });

    describe('under a policy that allows them', () => {
      beforeAll(async () => {
        await s.server.container.get(ManagePolicies).set(vaultId, {
          messages: true,
          txChainIds: ['1'],
          txTo: [RECIPIENT],
          txMaxValue: (10n ** 18n).toString(),
          typedDataContracts: [`1:${TOKEN}`],
        });
      });

      it('signs messages, text and raw bytes', async () => {
        const { signature } = await vault.signMessage(wallet, 'hello 👋');
        expect(await recoverMessageAddress({ message: 'hello 👋', signature })).toBe(wallet);
        const raw = await vault.signMessage(wallet.toLowerCase(), { raw: '0x00ff' });
        expect(await recoverMessageAddress({ message: { raw: '0x00ff' }, signature: raw.signature })).toBe(wallet);
      });

      it('signs typed data given as viem takes it (bigints in the message)', async () => {
        const typedData = permit({ name: 'Token', version: '1', chainId: 1, verifyingContract: TOKEN }, { owner: wallet, spender: RECIPIENT, value: 10n ** 30n, nonce: 3n, deadline: 2n ** 64n });
        const { signature } = await vault.signTypedData(wallet, typedData as Parameters<VaultClient['signTypedData']>[1]);
        expect(await recoverTypedDataAddress({ ...typedData, signature })).toBe(wallet);
      });

      it('signs a transaction given with bigints, answered serialised with its hash', async () => {
        const { serialized, hash } = await vault.signTransaction(wallet, {
          type: 'eip1559',
          chainId: 1,
          nonce: 9,
          to: RECIPIENT,
          value: 10n ** 17n,
          gas: 21_000n,
          maxFeePerGas: 30n * 10n ** 9n,
          maxPriorityFeePerGas: 10n ** 9n,
        });
        expect(hash).toBe(keccak256(serialized));
        expect(parseTransaction(serialized)).toMatchObject({ type: 'eip1559', chainId: 1, nonce: 9, value: 10n ** 17n, gas: 21_000n });
        expect(await recoverTransactionAddress({ serializedTransaction: serialized as never })).toBe(wallet);
      });

      it('says what the server refused: the field of a bad body, a wallet not in the vault', async () => {
        await expect(vault.signTransaction(wallet, { chainId: 1, nonce: 0, to: RECIPIENT } as never)).rejects.toMatchObject({ status: 400, code: 'INVALID_ARGUMENT', message: 'gas: is required' });
        await expect(vault.signMessage(`0x${'12'.repeat(20)}`, 'x')).rejects.toMatchObject({ status: 404, code: 'WALLET_NOT_FOUND' });
        expect(() => vault.signMessage(wallet, 5 as never)).toThrow(TypeError);
        expect(() => vault.signTypedData(wallet, null as never)).toThrow(TypeError);
        expect(() => vault.signTransaction('', {} as never)).toThrow(TypeError);
      });

      it('retries a 503 with a fresh auth header, and posts to the wallet path', async () => {
        const sent: { url: string; header: string | null }[] = [];
        const fetch = vi.fn(async (url: string | URL | Request, init: RequestInit = {}) => {
          sent.push({ url: String(url), header: new Headers(init.headers).get('x-vault-auth-signature') });
          if (sent.length === 1) return new Response(JSON.stringify({ success: false, error: 'key store local unavailable', code: 'KEYSTORE_UNAVAILABLE' }), { status: 503 });
          return globalThis.fetch(url, init);
        });
        const retrying = new VaultClient({ baseUrl: s.url, vaultId, apiKey: (await s.createApiKey(vaultId)).apiKey, ...(secured ? { authSecret: SECRET } : {}), retryDelayMs: 0, fetch: fetch as unknown as typeof globalThis.fetch });
        const { signature } = await retrying.signMessage(wallet, 'again');
        expect(await recoverMessageAddress({ message: 'again', signature })).toBe(wallet);
        expect(sent).toHaveLength(2);
        expect(new URL(sent[0]!.url).pathname).toBe(`/api/v1/vaults/${vaultId}/wallets/${wallet}/sign-message`);
        if (secured) expect(sent[0]!.header).not.toBe(sent[1]!.header);
        else expect(sent.map((r) => r.header)).toEqual([null, null]);
      });
    });
  });
}
