// Run by test/lib/packaging.test.ts inside a fresh project where only the packed tarball (with express,
// better-sqlite3, pg and node-vault) is installed: what an application sees. Prints one JSON line with
// what it found.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';

const entries = [
  'wallet-vault',
  'wallet-vault/express',
  'wallet-vault/keystores/local-file',
  'wallet-vault/keystores/pkcs11',
  'wallet-vault/keystores/aws-kms',
  'wallet-vault/keystores/gcp-kms',
  'wallet-vault/keystores/vault-transit',
  'wallet-vault/persistence/sqlite',
  'wallet-vault/persistence/postgres',
  'wallet-vault/testing',
  'wallet-vault/client',
  'wallet-vault/ethers',
  'wallet-vault/viem',
  'wallet-vault/contracts',
];
/** Each entry: the names it exports, or the message it failed with (a missing optional driver). */
const imported = {};
for (const entry of entries) {
  try {
    imported[entry] = { exports: Object.keys(await import(entry)).sort() };
  } catch (error) {
    imported[entry] = { error: String(error instanceof Error ? error.message : error).split('\n')[0] };
  }
}

const { createVault } = await import('wallet-vault');
const { vaultRouter, registerApiDocs } = await import('wallet-vault/express');
const { localFileKeyStore } = await import('wallet-vault/keystores/local-file');
const { sqlitePersistence } = await import('wallet-vault/persistence/sqlite');

const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-probe-'));
const vault = await createVault({
  persistence: await sqlitePersistence({ path: path.join(dir, 'vault.db') }),
  keyStores: [localFileKeyStore({ keysDir: path.join(dir, 'keys'), masterKeyHex: '12'.repeat(32) })],
  jobs: false,
});
const app = express();
app.use('/vault', vaultRouter(vault));
registerApiDocs(app, { ui: true });
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
let sign;
let clientError;
let docs;
try {
  const created = await vault.manageVaults.create({ name: 'probe' });
  const { apiKey } = await vault.manageVaults.createApiKey(created.id);
  const base = `http://127.0.0.1:${server.address().port}/vault/api/v1/vaults/${created.id}`;
  const post = async (route, body) => {
    const res = await fetch(`${base}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const wallet = await post('/wallets', { name: 'probe' });
  const signer = wallet.body.data.address;
  const uniq = `0x${'77'.repeat(32)}`;
  const abi = {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
      { name: 'sig', type: 'tuple', components: ['nonce', 'r', 's'].map((n) => ({ name: n, type: 'bytes32' })).concat({ name: 'v', type: 'uint8' }) },
    ],
    outputs: [],
  };
  const contract = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
  const sender = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
  const signed = await post('/sign', { chain: 'local', contract, sender, uniq, signer, abi, args: [sender, '1000'] });
  sign = { walletStatus: wallet.status, signer, uniq, contract, sender, status: signed.status, body: signed.body };
  // The API reference page's bundle comes from the package itself (no swagger-ui-dist installed).
  const bundle = await fetch(`http://127.0.0.1:${server.address().port}/docs/assets/swagger-ui-bundle.js`);
  docs = { status: bundle.status, bytes: (await bundle.arrayBuffer()).byteLength };
  // The typed client from the tarball: a refusal is a VaultError whose code a program branches on.
  const { VaultClient, VaultError } = await import('wallet-vault/client');
  const stranger = new VaultClient({ baseUrl: `http://127.0.0.1:${server.address().port}/vault`, vaultId: created.id, apiKey: `wv_${'0'.repeat(16)}_${'A'.repeat(43)}`, retries: 0 });
  clientError = await stranger.status().then(
    () => 'answered',
    (error) => ({ isVaultError: error instanceof VaultError, status: error.status, code: error.code }),
  );
} finally {
  await new Promise((resolve) => server.close(resolve));
  await vault.close();
  await rm(dir, { recursive: true, force: true });
}
// The shipped example contract as the package gives it (ABI and bytecode compiled at build), and where its
// Solidity sources are for Foundry or Hardhat: the test deploys it on anvil and sends the signed call.
const { SignableMint } = await import('wallet-vault/contracts');
const { createRequire } = await import('node:module');
const signableSource = createRequire(import.meta.url).resolve('wallet-vault/contracts/Signable.sol');
console.log(JSON.stringify({ imported, sign, clientError, docs, contract: { ...SignableMint, signableSource } }));
