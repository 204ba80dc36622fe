import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Contract, InterfaceAbi } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from 'wallet-vault';
// The example as it ships: it imports wallet-vault by package name (resolved to dist/ through the
// exports map; the global setup builds it).
import { createShopApp } from '../../examples/express-embed/app.js';
import { deploy, loadArtifact, startAnvil, type Anvil } from '../support/anvil.js';
import { client } from '../support/http-client.js';

const UNIQ = `0x${'6b'.repeat(32)}`;
const SESSION = { 'x-session': 'alice-session-token' };
const mintAbi = (loadArtifact('SignableTarget').abi as InterfaceAbi as { name?: string }[]).find((i) => i.name === 'mint')!;

describe('examples/express-embed: a shop app with its own auth, the vault mounted under /vault', () => {
  let dir: string;
  let anvil: Anvil;
  let vault: Vault;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-shop-'));
    let app: import('express').Express;
    [anvil, { app, vault }] = await Promise.all([
      startAnvil(),
      createShopApp({ dataDir: dir, masterKeyHex: 'ef'.repeat(32), sessions: { [SESSION['x-session']]: 'alice' } }),
    ]);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await vault?.close();
    await anvil?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** A vault and one of its API keys, made through the Vault's use cases as the shop's own code would. */
  const aVaultWithKey = async () => {
    const created = await vault.manageVaults.create({ name: 'shop payouts' });
    return { vaultId: created.id, apiKey: (await vault.manageVaults.createApiKey(created.id)).apiKey };
  };

  it("the shop's own middleware refuses without its session, before the vault sees the request", async () => {
    const { vaultId, apiKey } = await aVaultWithKey();
    const api = client(url, apiKey);
    // A valid vault API key is not enough: the shop's lock comes first, with the shop's own body.
    const refused = await api.get(`/vault/api/v1/vaults/${vaultId}/status`);
    expect(refused).toMatchObject({ status: 401, body: { error: 'sign in to the shop first' } });
    expect((await api.get('/me')).status).toBe(401);
    expect((await api.get('/me', SESSION)).body).toEqual({ user: 'alice' });
    expect((await client(url).get('/health')).body).toEqual({ ok: true });
  });

  it("with the shop's session but no vault API key, the vault's own 401 envelope answers", async () => {
    const { vaultId } = await aVaultWithKey();
    const r = await client(url).get(`/vault/api/v1/vaults/${vaultId}/status`, SESSION);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ success: false, error: expect.stringMatching(/Authorization/), code: 'UNAUTHENTICATED' });
  });

  it('the shop keeps its own JSON routes after the mount', async () => {
    const r = await client(url).post('/orders', { sku: 'tea', qty: 2 }, SESSION);
    expect(r).toMatchObject({ status: 201, body: { user: 'alice', order: { sku: 'tea', qty: 2 } } });
  });

  it('creates a wallet and signs through the mounted router; a contract on anvil accepts the signature', async () => {
    const { vaultId, apiKey } = await aVaultWithKey();
    const api = client(url, apiKey);
    const base = `/vault/api/v1/vaults/${vaultId}`;
    const created = await api.post(`${base}/wallets`, { name: 'payout signer' }, SESSION);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const signer: string = created.body.data.address;

    const target = await deploy(anvil, 'SignableTarget', [signer, UNIQ]);
    const sender = await anvil.account(1).getAddress();
    const to = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const signed = await api.post(
      `${base}/sign`,
      { chain: 'local', contract: target.target, sender, uniq: UNIQ, signer, abi: mintAbi, args: [to, '1000'] },
      SESSION,
    );
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const { submissionHash, args } = signed.body.data;

    const tx = await (target.connect(anvil.account(1)) as Contract).getFunction('mint')(...args);
    expect((await tx.wait())?.status).toBe(1);
    expect(await target.getFunction('used')(submissionHash)).toBe(true);
    expect(await target.getFunction('lastAmount')()).toBe(1000n);
  });
});
