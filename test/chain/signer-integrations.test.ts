import { Contract, Signature, parseEther, verifyMessage, verifyTypedData, type Contract as EthersContract } from 'ethers';
import { createPublicClient, createWalletClient, http, recoverMessageAddress, recoverTypedDataAddress, type Hex } from 'viem';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VaultSigner } from '../../client/ethers-signer.js';
import { VaultClient } from '../../client/index.js';
import type { StandardSigningClient } from '../../client/standard-signing.js';
import { vaultAccount } from '../../client/viem-account.js';
import type { Vault } from '../../adapters/main/create-vault.js';
import type { Principal } from '../../src/application/access/principal.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { permit } from '../support/typed-data-fixtures.js';
import { signedNow } from '../support/signed.js';

/**
 * The vault as the signer of the two Ethereum libraries (wallet-vault/viem, wallet-vault/ethers): each
 * sends an eip1559 and a legacy transaction from a funded vault wallet on anvil (mined), signs a message
 * both libraries verify, and calls a contract with a permit the vault signed, which the contract accepts.
 * Each runs twice: over the HTTP client (VaultClient against the real server) and over the in-process
 * API behind the small client type they take (StandardSigningClient).
 */
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const CHAIN_ID = 31337;

/** The in-process API as the client type the integrations take. */
const inProcessClient = (vault: Vault, principal: Principal): StandardSigningClient => ({
  signMessage: (address, message) => signedNow(vault.signMessage.execute({ principal, address, message })),
  signTypedData: (address, typedData) => signedNow(vault.signTypedData.execute({ principal, address, typedData })),
  signTransaction: (address, transaction) => signedNow(vault.signTransaction.execute({ principal, address, transaction })),
});

/** What each library's test needs of it: send value, sign a message, sign typed data, call permit. */
interface Integration {
  readonly address: Hex;
  send(tx: { to: string; value: bigint; legacy: boolean }): Promise<{ status: number; type: number; from: string }>;
  signMessage(message: string): Promise<Hex>;
  signPermit(typedData: ReturnType<typeof permit>): Promise<Hex>;
  /** Calls the token's permit from the vault wallet itself (a contract write signed by the vault). */
  callPermit(args: readonly unknown[]): Promise<number>;
}

describe('wallet-vault/viem and wallet-vault/ethers on anvil', () => {
  let anvil: Anvil;
  let s: TestServer;
  let vault: Vault;
  let principal: Principal;
  let clients: Record<string, () => StandardSigningClient>;
  let token: EthersContract;
  let tokenAddress: Hex;

  beforeAll(async () => {
    anvil = await startAnvil();
    s = await startTestServer();
    vault = s.server.vault;
    const created = await vault.manageVaults.create({ name: 'integrations' });
    const { apiKey } = await vault.manageVaults.createApiKey(created.id);
    principal = await vault.authenticate.execute(apiKey, created.id);
    clients = {
      'the HTTP client': () => new VaultClient({ baseUrl: s.url, vaultId: created.id, apiKey }),
      'the in-process API': () => inProcessClient(vault, principal),
    };
    token = await deploy(anvil, 'PermitToken', ['Vault Permit']);
    tokenAddress = (await token.getAddress()) as Hex;
    await vault.managePolicies.set(created.id, {
      txChainIds: [String(CHAIN_ID)],
      txTo: [RECIPIENT, tokenAddress],
      txSelectors: [token.interface.getFunction('permit')!.selector],
      txMaxValue: parseEther('1').toString(),
      messages: true,
      typedDataContracts: [`${CHAIN_ID}:${tokenAddress}`],
    });
  });

  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
  });

  /** A new vault wallet with 10 ether. */
  async function fundedWallet(name: string): Promise<Hex> {
    const address = (await vault.createWallet.execute({ principal, name })).address as Hex;
    await (await anvil.account(0).sendTransaction({ to: address, value: parseEther('10') })).wait();
    return address;
  }

  const integrations: Record<string, (client: StandardSigningClient, wallet: string) => Promise<Integration>> = {
    async viem(client, name) {
      const address = await fundedWallet(name);
      const account = vaultAccount({ client, address });
      const chain = { ...anvilChain, rpcUrls: { default: { http: [anvil.rpcUrl] } } };
      const wallet = createWalletClient({ account, chain, transport: http(anvil.rpcUrl) });
      const reader = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
      const mined = async (hash: Hex) => {
        const r = await reader.waitForTransactionReceipt({ hash });
        return { status: r.status === 'success' ? 1 : 0, type: r.type === 'eip1559' ? 2 : r.type === 'legacy' ? 0 : -1, from: r.from };
      };
      return {
        address,
        send: async ({ to, value, legacy }) =>
          mined(await wallet.sendTransaction(legacy ? { to: to as Hex, value, type: 'legacy' } : { to: to as Hex, value })),
        signMessage: (message) => wallet.signMessage({ message }),
        signPermit: (typedData) => wallet.signTypedData(typedData as Parameters<typeof wallet.signTypedData>[0]),
        callPermit: async (args) =>
          (await mined(await wallet.writeContract({ address: tokenAddress, abi: loadArtifact('PermitToken').abi as never, functionName: 'permit', args: args as never }))).status,
      };
    },
    async ethers(client, name) {
      const address = await fundedWallet(name);
      const signer = new VaultSigner(client, address, anvil.provider);
      const mined = async (tx: { wait(): Promise<{ status: number | null; type: number; from: string } | null> }) => {
        const r = (await tx.wait())!;
        return { status: r.status ?? 0, type: r.type, from: r.from };
      };
      return {
        address: signer.address,
        send: async ({ to, value, legacy }) => mined(await signer.sendTransaction(legacy ? { to, value, type: 0 } : { to, value })),
        signMessage: (message) => signer.signMessage(message) as Promise<Hex>,
        signPermit: (typedData) => signer.signTypedData(typedData.domain as never, typedData.types as never, typedData.message as never) as Promise<Hex>,
        callPermit: async (args) => (await mined(await (new Contract(tokenAddress, token.interface, signer).getFunction('permit')(...args)))).status,
      };
    },
  };

  const cases = Object.keys(integrations).flatMap((library) => ['the HTTP client', 'the in-process API'].map((over) => [library, over] as const));
  describe.each(cases)('%s over %s', (library, over) => {
    let it_: Integration;
    beforeAll(async () => {
      it_ = await integrations[library]!(clients[over]!(), `${library} ${over}`);
    });

    it('sends an eip1559 and a legacy transfer the vault signed; both are mined from the vault wallet', async () => {
      const before = await anvil.provider.getBalance(RECIPIENT);
      const eip1559 = await it_.send({ to: RECIPIENT, value: 5n, legacy: false });
      const legacy = await it_.send({ to: RECIPIENT, value: 7n, legacy: true });
      expect([eip1559.status, eip1559.type, legacy.status, legacy.type]).toEqual([1, 2, 1, 0]);
      expect([eip1559.from.toLowerCase(), legacy.from.toLowerCase()]).toEqual([it_.address.toLowerCase(), it_.address.toLowerCase()]);
      expect((await anvil.provider.getBalance(RECIPIENT)) - before).toBe(12n);
    });

    it('signs a message that viem and ethers both recover to the vault wallet', async () => {
      const signature = await it_.signMessage('log in to example.org, nonce 42');
      expect((await recoverMessageAddress({ message: 'log in to example.org, nonce 42', signature })).toLowerCase()).toBe(it_.address.toLowerCase());
      expect(verifyMessage('log in to example.org, nonce 42', signature).toLowerCase()).toBe(it_.address.toLowerCase());
    });

    it("signs a permit the token accepts, sent as a contract call the vault signed too", async () => {
      const spender = await anvil.account(1).getAddress();
      const nonce = (await token.getFunction('nonces')(it_.address)) as bigint;
      const typedData = permit(
        { name: 'Vault Permit', version: '1', chainId: CHAIN_ID, verifyingContract: tokenAddress },
        { owner: it_.address, spender, value: 99n, nonce, deadline: 2n ** 64n },
      );
      const signature = await it_.signPermit(typedData);
      expect((await recoverTypedDataAddress({ ...typedData, signature } as never)).toLowerCase()).toBe(it_.address.toLowerCase());
      expect(verifyTypedData(typedData.domain as never, typedData.types as never, typedData.message as never, signature).toLowerCase()).toBe(it_.address.toLowerCase());
      const { v, r, s } = Signature.from(signature);
      expect(await it_.callPermit([it_.address, spender, 99n, 2n ** 64n, v, r, s])).toBe(1);
      expect(await token.getFunction('allowance')(it_.address, spender)).toBe(99n);
    });

    it('is refused what the policy does not allow, and nothing reaches the chain', async () => {
      const nonce = await anvil.provider.getTransactionCount(it_.address, 'pending');
      await expect(it_.send({ to: await anvil.account(3).getAddress(), value: 1n, legacy: false })).rejects.toThrow(/policy/);
      await expect(it_.send({ to: RECIPIENT, value: parseEther('2'), legacy: false })).rejects.toThrow(/policy/);
      expect(await anvil.provider.getTransactionCount(it_.address, 'pending')).toBe(nonce);
    });
  });
});
