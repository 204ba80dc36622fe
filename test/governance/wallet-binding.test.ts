import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../lib/index.js';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../adapters/persistence/postgres/postgres.migration-steps.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../adapters/persistence/sqlite/sqlite.migration-steps.js';
import { SIGNER_CACHE_TTL_MS } from '../../src/application/wallets/wallet-lookup.js';
import { MovableClock } from '../support/movable-clock.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { SIGNER_ABI } from '../support/sign-fixtures.js';
import { asJson, permit } from '../support/typed-data-fixtures.js';
import { ethersApprover, openStore, viemApprover, type Approver, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];

const CHAIN_ID = 31337;
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
/** 1000 ETH in wei. */
const THOUSAND_ETH = (1000n * 10n ** 18n).toString();

/** Every message and transaction allowed, then held for two approvers: the treasury's policy. */
const HOLD_EVERYTHING = {
  version: 2,
  rules: [
    { id: 'messages', effect: 'allow', kinds: ['message'] },
    { id: 'payments', effect: 'allow', kinds: ['transaction'] },
    { id: 'calls', effect: 'allow', kinds: ['call'] },
    { id: 'four-eyes', effect: { hold: { required: 2 } }, kinds: ['message', 'transaction', 'call'] },
  ],
  limits: [],
};
/** What the database writer's own vault allows: everything. */
const PERMISSIVE = JSON.stringify({ version: 2, rules: [{ id: 'all', effect: 'allow' }, { id: 'delegations', effect: 'allow', kinds: ['authorization'] }], limits: [] });

const transaction = () => ({
  type: 'eip1559',
  chainId: CHAIN_ID,
  nonce: 0,
  to: RECIPIENT,
  value: THOUSAND_ETH,
  gas: '21000',
  maxFeePerGas: '2000000000',
  maxPriorityFeePerGas: '1000000000',
});
const call = (signer: string) => ({
  chain: 'local',
  contract: CONTRACT,
  sender: RECIPIENT,
  uniq: `0x${'11'.repeat(32)}`,
  signer,
  abi: SIGNER_ABI,
  args: [THOUSAND_ETH],
});

const PERMIT = asJson(
  permit({ name: 'Token', version: '1', chainId: CHAIN_ID, verifyingContract: CONTRACT }, { owner: RECIPIENT, spender: RECIPIENT, value: 10n ** 30n, nonce: 0n, deadline: 2n ** 40n }),
);

const codeOf = (p: Promise<unknown>) => p.then(() => 'signed', (e: { code?: string; message?: string }) => (e.code === 'INVALID_ARGUMENT' ? e.message : e.code) ?? String(e));

/*
 * A database writer against a governed vault (issue: "a database writer signs with a governed vault's
 * wallet"): with no key store access and no approver, they add a vault of their own, an API key whose secret
 * they know, a policy allowing everything, and move the treasury's wallet row into that vault. The wallet's
 * key was bound to the treasury when it was made (docs/security.md, "What a database writer can change"):
 * the moved row does not match that binding, so every signature is refused and nothing is signed.
 */
describe.each(DIALECTS)('a wallet row moved to another vault by SQL on %s', (dialect) => {
  let store: Store;
  let setup: Vault;
  const approvers: Approver[] = [ethersApprover(), viemApprover(), ethersApprover()];

  beforeAll(async () => {
    store = await openStore(dialect);
    setup = await store.open();
  });
  afterAll(async () => {
    await store?.close();
  });

  /** The treasury: a wallet, its policy holding every message, call and transaction for 2 of 3, governed and pinned. */
  const treasury = async (name: string) => {
    const { id: vaultId } = await setup.manageVaults.create({ name });
    const { apiKey } = await setup.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    const principal = await setup.authenticate.execute(apiKey, vaultId);
    const wallet = (await setup.createWallet.execute({ principal, name: 'treasury' })).address;
    await setup.managePolicies.apply(vaultId, HOLD_EVERYTHING);
    const set = await setup.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address) }, 'operator');
    if (!('genesis' in set)) throw new Error('expected a genesis');
    // The running server: the governance pin from its configuration, outside the database.
    const pins = new Map([[vaultId, set.genesis.hash]]);
    const server = await store.open({ pins });
    return { vaultId, wallet, pins, principal: await server.authenticate.execute(apiKey, vaultId), server };
  };

  /** The writer's own vault, as plain SQL: a vault row, an API key whose secret they chose, a policy allowing everything. */
  const writersVault = async (like: string) => {
    const evil = randomUUID();
    const id = randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    const secretHash = createHash('sha256').update(secret).digest('hex');
    await store.sql('INSERT INTO vaults (id, account_id, name, created) SELECT $1, account_id, $2, created FROM vaults WHERE id = $3', [evil, 'evil', like]);
    await store.sql('INSERT INTO api_keys (id, vault_id, secret_hash, created) SELECT $1, $2, $3, created FROM vaults WHERE id = $2', [id, evil, secretHash]);
    await store.sql('INSERT INTO sign_policies (vault_id, policy, updated) SELECT $1, $2, updated FROM sign_policies WHERE vault_id = $3', [evil, PERMISSIVE, like]);
    return { evil, apiKey: `wv_${id}_${secret}` };
  };

  const signed = async (vault: Vault, vaultId: string) =>
    (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'signature.issued' || (r.action.startsWith('sign.') && r.action !== 'sign.denied'));

  it('before: the treasury holds a message and a 1000 ETH transaction for its approvers', async () => {
    const { wallet, principal, server } = await treasury('treasury before');
    expect(await server.signMessage.execute({ principal, address: wallet, message: 'pay' })).toHaveProperty('approval');
    expect(await server.signTransaction.execute({ principal, address: wallet, transaction: transaction() })).toHaveProperty('approval');
  });

  it('attack: the moved row signs nothing (message, 1000 ETH transaction, Sign call, typed data, authorization): WALLET_BINDING_INVALID, nothing recorded as signed', async () => {
    const { vaultId, wallet, pins, server } = await treasury('treasury');
    const { evil, apiKey } = await writersVault(vaultId);
    await store.sql('UPDATE wallets SET vault_id = $1 WHERE address = $2', [evil, wallet]);
    const writer = await server.authenticate.execute(apiKey, evil);
    expect(writer.vaultId).toBe(evil);

    const outcomes = {
      message: await codeOf(server.signMessage.execute({ principal: writer, address: wallet, message: 'pay' })),
      transaction: await codeOf(server.signTransaction.execute({ principal: writer, address: wallet, transaction: transaction() })),
      call: await codeOf(server.signCall.execute({ principal: writer, ...call(wallet) })),
      typedData: await codeOf(server.signTypedData.execute({ principal: writer, address: wallet, typedData: PERMIT })),
      authorization: await codeOf(server.signAuthorization.execute({ principal: writer, address: wallet, authorization: { chainId: CHAIN_ID, address: CONTRACT, nonce: 0 } })),
    };
    const refused = 'WALLET_BINDING_INVALID';
    expect(outcomes).toEqual({ message: refused, transaction: refused, call: refused, typedData: refused, authorization: refused });
    // A second instance, started after the change (nothing cached from before it), refuses the same.
    const restarted = await store.open({ pins });
    expect(await codeOf(restarted.signMessage.execute({ principal: await restarted.authenticate.execute(apiKey, evil), address: wallet, message: 'pay' }))).toBe('WALLET_BINDING_INVALID');

    expect(await signed(server, evil)).toEqual([]);
    expect(await signed(server, vaultId)).toEqual([]);
  });

  it("attack: the writer's own approver keys would release a held message of the moved row: it is not even held, nothing signed", async () => {
    const { vaultId, wallet, server } = await treasury('treasury release');
    const { evil, apiKey } = await writersVault(vaultId);
    // Their policy holds messages for one approver, whom they mint too (a key row of their vault, all roles).
    const holding = JSON.stringify({ version: 2, rules: [{ id: 'all', effect: 'allow' }, { id: 'one', effect: { hold: { required: 1 } }, kinds: ['message'] }], limits: [] });
    await store.sql('UPDATE sign_policies SET policy = $1 WHERE vault_id = $2', [holding, evil]);
    const approver = { id: randomBytes(8).toString('hex'), secret: randomBytes(32).toString('base64url') };
    await store.sql('INSERT INTO api_keys (id, vault_id, secret_hash, created) SELECT $1, $2, $3, created FROM vaults WHERE id = $2', [approver.id, evil, createHash('sha256').update(approver.secret).digest('hex')]);
    await store.sql('UPDATE wallets SET vault_id = $1 WHERE address = $2', [evil, wallet]);
    const writer = await server.authenticate.execute(apiKey, evil);
    // Not even held: the held request's row is sealed by its wallet's key, through the check of its binding.
    expect(await codeOf(server.signMessage.execute({ principal: writer, address: wallet, message: 'pay' }))).toBe('WALLET_BINDING_INVALID');
    expect((await server.listApprovals.execute(evil, {})).page).toEqual([]);
    expect(await signed(server, evil)).toEqual([]);
  });

  it("attack: the writer's own wallet row pointed at the treasury's key (key_ref) signs nothing with it", async () => {
    const { vaultId, wallet, server } = await treasury('treasury key');
    const { evil, apiKey } = await writersVault(vaultId);
    const writer = await server.authenticate.execute(apiKey, evil);
    // A wallet of their vault made through the API (bound to it, and to its own key), then its row pointed at the treasury's key.
    const own = (await server.createWallet.execute({ principal: writer, name: 'mine' })).address;
    await store.sql('UPDATE wallets SET key_ref = (SELECT key_ref FROM wallets WHERE address = $1) WHERE address = $2', [wallet, own]);

    const outcomes = {
      message: await codeOf(server.signMessage.execute({ principal: writer, address: own, message: 'pay' })),
      transaction: await codeOf(server.signTransaction.execute({ principal: writer, address: own, transaction: transaction() })),
      call: await codeOf(server.signCall.execute({ principal: writer, ...call(own) })),
    };
    expect(outcomes).toEqual({ message: 'WALLET_BINDING_INVALID', transaction: 'WALLET_BINDING_INVALID', call: 'WALLET_BINDING_INVALID' });
    expect(await signed(server, evil)).toEqual([]);
  });
});

/** Messages allowed: what the legacy vault signs with. */
const MESSAGES = { version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }], limits: [] };

/*
 * The upgrade (docs/security.md, "What a database writer can change"): a database a release before
 * bindings left, with a wallet in it, is migrated by the first start; that start binds the wallet with its
 * own key, once, on record, and it signs. From then on a row without a binding (a writer's NULL) signs
 * nothing, however many times the vault starts, until an operator binds it on purpose.
 */
describe.each(DIALECTS)('the wallets of a release before bindings on %s', (dialect) => {
  let store: Store;

  beforeAll(async () => {
    store = await openStore(dialect);
  });
  afterAll(async () => {
    await store?.close();
  });

  /** The schema as the release before bindings left it: no binding column, no marker (nor what later migrations added). */
  const asBeforeBindings = async () => {
    const bindings = (dialect === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS).findIndex((m) => m.name === 'wallet-binding') + 1;
    // What the migrations after it added (held-request-seal, api-key-lifecycle, audit-stream-cursors, hd-derivation, operators, key-export, approval-blocked-by).
    await store.sql('ALTER TABLE wallets DROP COLUMN derivation_path');
    await store.sql('DROP TABLE hd_indexes');
    await store.sql('DROP TABLE audit_stream_cursors');
    await store.sql('DROP TABLE operators');
    await store.sql('DROP TABLE key_exports');
    await store.sql('ALTER TABLE wallets DROP COLUMN exported');
    for (const column of ['blocked_by', 'blocked_code', 'blocked_message', 'blocked_at']) await store.sql(`ALTER TABLE approvals DROP COLUMN ${column}`);
    await store.sql('ALTER TABLE approvals DROP COLUMN seal');
    for (const column of ['label', 'expires', 'replaced_by', 'overlap_ends', 'replaces', 'first_used']) await store.sql(`ALTER TABLE api_keys DROP COLUMN ${column}`);
    await store.sql('ALTER TABLE wallets DROP COLUMN binding');
    await store.sql('DROP TABLE wallet_binding_upgrade');
    await store.sql('DELETE FROM wallet_vault_migrations WHERE version >= $1', [bindings]);
    if (dialect === 'sqlite') await store.sql(`PRAGMA user_version = ${bindings - 1}`);
  };
  const trail = async (vault: Vault, vaultId: string, action: string) => (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === action);
  const codeOf = (p: Promise<unknown>) => p.then(() => 'signed', (e: { code?: string }) => e.code);

  it('are bound once by the first start after the migration (wallet.bound) and sign; a binding nulled after that is refused until an operator binds it', async () => {
    const earlier = await store.open();
    const { id: vaultId } = await earlier.manageVaults.create({ name: 'legacy' });
    await earlier.managePolicies.apply(vaultId, MESSAGES);
    const { apiKey } = await earlier.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    const address = (await earlier.createWallet.execute({ principal: await earlier.authenticate.execute(apiKey, vaultId), name: 'old' })).address;
    await earlier.close();
    await asBeforeBindings();

    const upgraded = await store.open();
    const principal = await upgraded.authenticate.execute(apiKey, vaultId);
    expect(await codeOf(upgraded.signMessage.execute({ principal, address, message: 'hello' }))).toBe('signed');
    const bound = await trail(upgraded, vaultId, 'wallet.bound');
    expect(bound).toEqual([expect.objectContaining({ actor: 'system', subject: address, details: expect.objectContaining({ by: 'upgrade', keyStore: 'local' }) })]);
    expect(await store.sql('SELECT pending FROM wallet_binding_upgrade')).toEqual([]);

    // Another start binds nothing more.
    const again = await store.open();
    expect(await trail(again, vaultId, 'wallet.bound')).toHaveLength(1);

    // The writer clears the binding: no start binds it again, every signature is refused.
    await store.sql('UPDATE wallets SET binding = NULL WHERE address = $1', [address]);
    const clock = new MovableClock();
    const restarted = await store.open({ clock });
    const asked = await restarted.authenticate.execute(apiKey, vaultId);
    await expect(restarted.signMessage.execute({ principal: asked, address, message: 'hello' })).rejects.toMatchObject({
      code: 'WALLET_BINDING_INVALID',
      message: expect.stringMatching(/its row carries no binding of its key to vault .*points to a change made in the database; nothing was signed/),
    });
    expect(await trail(restarted, vaultId, 'wallet.bound')).toHaveLength(1);
    expect(await trail(restarted, vaultId, 'wallet.binding-invalid')).toEqual([expect.objectContaining({ subject: address, details: expect.objectContaining({ problem: 'unbound' }) })]);

    // The operator binds it on purpose: recorded, and it signs again.
    expect(await restarted.bindWallets.bind({ vaultId, address: address.toLowerCase() })).toEqual({ bound: [{ vaultId, address }], failed: [] });
    expect((await trail(restarted, vaultId, 'wallet.bound')).map((r) => [r.actor, r.details.by])).toEqual([
      ['system', 'upgrade'],
      ['operator', 'operator'],
    ]);
    // The instance's signer cache held the unbound row: it reads the bound one within SIGNER_CACHE_TTL_MS.
    clock.advance(SIGNER_CACHE_TTL_MS);
    expect(await codeOf(restarted.signMessage.execute({ principal: asked, address, message: 'hello' }))).toBe('signed');
    await expect(restarted.bindWallets.bind({ vaultId, address })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/bound to vault .* already; nothing to do/) });
  });

  it('an operator does not bind a row whose binding no longer holds (a row moved by SQL): restoring the row is the remedy', async () => {
    const vault = await store.open();
    const [{ id: home }, { id: elsewhere }] = [await vault.manageVaults.create({ name: 'home' }), await vault.manageVaults.create({ name: 'elsewhere' })];
    const { apiKey } = await vault.manageVaults.createApiKey(home, { roles: ['signer', 'admin'] });
    const address = (await vault.createWallet.execute({ principal: await vault.authenticate.execute(apiKey, home), name: 'moved' })).address;
    await store.sql('UPDATE wallets SET vault_id = $1 WHERE address = $2', [elsewhere, address]);
    await expect(vault.bindWallets.bind({ vaultId: elsewhere, address })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/restore the row as it was/) });
    // Binding the vault's unbound wallets leaves it alone too: it is not unbound.
    expect(await vault.bindWallets.bind({ vaultId: elsewhere })).toEqual({ bound: [], failed: [] });
    expect(await trail(vault, elsewhere, 'wallet.bound')).toEqual([]);
  });
});
