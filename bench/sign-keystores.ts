import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cliJson, migrateStore, spawnServer } from '../test/support/cli.js';
import { startFakeAzureKeyVault } from '../test/support/fake-azure-key-vault.server.js';
import { startFakeGcpKms } from '../test/support/fake-gcp-kms.server.js';
import { startFakeKms } from '../test/support/fake-kms.server.js';
import { startFakeVault } from '../test/support/fake-vault.server.js';
import { createSoftHsmToken } from '../test/support/softhsm.js';
import { printTable, runLoad, type LoadResult } from './support/load.js';
import { SIGN_ABI, SIGN_ARGS, SIGN_CONTRACT, SIGN_SENDER, SIGN_UNIQ } from './support/sign-request.js';

/**
 * Sign throughput per key store at 32 connections, one server process each.
 * aws-kms, gcp-kms, vault-transit and azure-key-vault run against the KMS-, Cloud KMS-, Vault- and Key
 * Vault-compatible servers of the tests, on this machine: the figures say what the service adds, not what
 * AWS, Google, a real Vault cluster or Azure would do (Key Vault's own limits are per vault and per 10 s,
 * docs/keystores.md). azure-key-vault takes its token as on App Service, from the stand-in's managed
 * identity endpoint, through the SDK's DefaultAzureCredential; gcp-kms authenticates as Google's client
 * does with application default credentials: a service account file, self-signed JWTs.
 * Usage: npm run bench:sign-keystores [-- seconds]
 */
const seconds = Number(process.argv[2] ?? 10);
const kms = await startFakeKms();
const transit = await startFakeVault();
const azure = await startFakeAzureKeyVault();
const gcp = await startFakeGcpKms();
const token = createSoftHsmToken('bench');
const credentialsDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-bench-gcp-'));
const serviceAccountFile = path.join(credentialsDir, 'service-account.json');
await writeFile(serviceAccountFile, JSON.stringify(gcp.serviceAccount), { mode: 0o600 });

const stores: [string, Record<string, string>][] = [
  ['local', {}],
  ['pkcs11 (SoftHSM2)', { VAULT_KEYSTORE: 'pkcs11', VAULT_PKCS11_MODULE: token.modulePath, VAULT_PKCS11_TOKEN: token.tokenLabel, VAULT_PKCS11_PIN: token.pin }],
  [
    'aws-kms (local KMS-compatible test server)',
    { VAULT_KEYSTORE: 'aws-kms', VAULT_KMS_ENDPOINT: kms.url, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: kms.accessKeyId, AWS_SECRET_ACCESS_KEY: kms.secretAccessKey },
  ],
  [
    'gcp-kms (local Cloud KMS-compatible test server, REST)',
    { VAULT_KEYSTORE: 'gcp-kms', VAULT_GCP_KMS_KEY_RING: gcp.keyRing, VAULT_GCP_KMS_ENDPOINT: gcp.url, GOOGLE_APPLICATION_CREDENTIALS: serviceAccountFile },
  ],
  ['vault-transit, cache off (local Vault-compatible test server)', { VAULT_KEYSTORE: 'vault-transit', VAULT_ADDR: transit.url, VAULT_TRANSIT_ALLOW_HTTP: 'true', VAULT_TOKEN: transit.token, VAULT_TRANSIT_KEY: 'wallet-vault' }],
  [
    'vault-transit, cache 60 s (local Vault-compatible test server)',
    { VAULT_KEYSTORE: 'vault-transit', VAULT_ADDR: transit.url, VAULT_TRANSIT_ALLOW_HTTP: 'true', VAULT_TOKEN: transit.token, VAULT_TRANSIT_KEY: 'wallet-vault', VAULT_TRANSIT_CACHE_SECONDS: '60' },
  ],
  [
    'azure-key-vault (local Key Vault-compatible test server)',
    {
      VAULT_KEYSTORE: 'azure-key-vault',
      VAULT_AZURE_KEY_VAULT_URL: azure.url,
      VAULT_AZURE_KEY_VAULT_ALLOW_HTTP: 'true',
      VAULT_AZURE_DISABLE_CHALLENGE_RESOURCE_VERIFICATION: 'true',
      ...azure.managedIdentityEnv,
    },
  ],
];

const results: LoadResult[] = [];
try {
  for (const [label, storeEnv] of stores) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-bench-'));
    const env = { VAULT_DATA_DIR: dataDir, ...storeEnv };
    try {
      await migrateStore(env);
      const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'bench'], env);
      const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], env);
      const server = await spawnServer(env);
      try {
        const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
        const url = `${server.url}/api/v1/vaults/${vault.id}`;
        const created = await fetch(`${url}/wallets`, { method: 'POST', headers, body: JSON.stringify({ name: 'signer' }) });
        const signer = ((await created.json()) as { data: { address: string } }).data.address;
        const body = JSON.stringify({ chain: 'local', contract: SIGN_CONTRACT, sender: SIGN_SENDER, uniq: SIGN_UNIQ, signer, abi: SIGN_ABI, args: SIGN_ARGS });
        const check = await fetch(`${url}/sign`, { method: 'POST', headers, body });
        if (check.status !== 200) throw new Error(`${label}: sign failed: ${check.status} ${await check.text()}`);
        results.push(await runLoad({ label, url: `${url}/sign`, connections: 32, durationSeconds: seconds, method: 'POST', headers, body }));
      } finally {
        await server.kill('SIGTERM');
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await kms.close();
  await gcp.close();
  await transit.close();
  await azure.close();
  await rm(credentialsDir, { recursive: true, force: true });
}
printTable(results);
