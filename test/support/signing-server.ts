import { client } from './http-client.js';
import { startTestServer, type TestServer } from './test-server.js';

/** A test server with one vault, an API key for it and one wallet to sign with: what every sign test starts from. */
export interface SigningServer {
  readonly s: TestServer;
  readonly api: ReturnType<typeof client>;
  /** `/api/v1/vaults/<id>` */
  readonly base: string;
  /** The wallet's address. */
  readonly signer: string;
}

export async function startSigningServer(vaultName: string): Promise<SigningServer> {
  const s = await startTestServer();
  const vaultId = (await s.createVault({ name: vaultName })).id;
  const api = client(s.url, (await s.createApiKey(vaultId)).apiKey);
  const base = `/api/v1/vaults/${vaultId}`;
  const signer = (await api.post(`${base}/wallets`, { name: 'signer' })).body.data.address as string;
  return { s, api, base, signer };
}
