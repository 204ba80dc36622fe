import type { Contract, InterfaceAbi } from 'ethers';
import { client } from './http-client.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from './anvil.js';
import { startTestServer, type TestServer } from './test-server.js';

/** The ABI item of one function of SignableTarget (test/chain/contracts), as a client sends it. */
export const signableAbiItem = (name: string) => (loadArtifact('SignableTarget').abi as InterfaceAbi as { name?: string }[]).find((i) => i.name === name)!;

/** anvil, a vault server, one vault with an API key and a signer wallet, and a SignableTarget that wallet signs for. */
export interface SignableChain {
  readonly anvil: Anvil;
  readonly server: TestServer;
  readonly api: ReturnType<typeof client>;
  /** `/api/v1/vaults/{vaultId}` */
  readonly base: string;
  readonly vaultId: string;
  readonly signer: string;
  readonly target: Contract;
  /** anvil's account 1, which sends the transactions. */
  readonly sender: string;
  stop(): Promise<void>;
}

export async function startSignableChain(vaultName: string, uniq: string): Promise<SignableChain> {
  const [anvil, server] = await Promise.all([startAnvil(), startTestServer()]);
  const vaultId = (await server.createVault({ name: vaultName })).id;
  const api = client(server.url, (await server.createApiKey(vaultId)).apiKey);
  const base = `/api/v1/vaults/${vaultId}`;
  const signer = (await api.post(`${base}/wallets`, { name: 'contract signer' })).body.data.address as string;
  const target = await deploy(anvil, 'SignableTarget', [signer, uniq]);
  const sender = await anvil.account(1).getAddress();
  return {
    anvil,
    server,
    api,
    base,
    vaultId,
    signer,
    target,
    sender,
    stop: async () => {
      await server.stop();
      await anvil.stop();
    },
  };
}
