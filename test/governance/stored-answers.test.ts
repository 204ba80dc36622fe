import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wallet } from 'ethers';
import type { Vault } from '../../lib/index.js';
import type { Principal } from '../../src/application/access/principal.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { openStore, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];

/*
 * A wallet create retried with its Idempotency-Key gets the first answer back (docs/api.md), read from
 * `idempotency_records`: a row a database writer can rewrite (docs/security.md, "What a database writer
 * can change"). A client takes that answer's address for its new wallet and sends funds there, so the
 * answer is checked against the wallet rows and their bindings before it is given.
 */
describe.each(DIALECTS)('the stored answer of a retried wallet create on %s', (dialect) => {
  let store: Store;
  let vault: Vault;
  let principal: Principal;

  beforeAll(async () => {
    store = await openStore(dialect);
    vault = await store.open();
    const { id: vaultId } = await vault.manageVaults.create({ name: 'payroll' });
    const { record } = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer'] });
    principal = { apiKeyId: record.id, vaultId, roles: record.roles };
  });
  afterAll(async () => {
    await store?.close();
  });

  const create = (key: string) => vault.createWallet.execute({ principal, name: 'deposits', idempotency: { key, body: { name: 'deposits' } } });
  const rewrite = async (key: string, change: (answer: Record<string, unknown>) => Record<string, unknown> | string) => {
    const [row] = (await store.sql('SELECT response FROM idempotency_records WHERE key = $1', [key])) as { response: string }[];
    const changed = change(JSON.parse(row!.response) as Record<string, unknown>);
    await store.sql('UPDATE idempotency_records SET response = $1 WHERE key = $2', [typeof changed === 'string' ? changed : JSON.stringify(changed), key]);
  };

  it('untouched, a retry answers the first wallet and creates nothing', async () => {
    const first = await create('retry-1');
    expect((await create('retry-1')).address).toBe(first.address);
  });

  it("attack: the stored answer rewritten by SQL to an address of the writer's: the retry is refused (WALLET_BINDING_INVALID), the address never answered", async () => {
    await create('retry-2');
    const theirs = Wallet.createRandom().address;
    await rewrite('retry-2', (a) => ({ ...a, address: theirs }));
    await expect(create('retry-2')).rejects.toMatchObject({
      code: 'WALLET_BINDING_INVALID',
      message: expect.stringMatching(new RegExp(`Idempotency-Key: the answer stored for it names wallet ${theirs}, which is no wallet bound to vault .*: a change made in the database`)),
    });
  });

  it("attack: the stored answer pointed at a wallet of another vault (the writer's own, made through the API): refused", async () => {
    const { id: theirVault } = await vault.manageVaults.create({ name: 'theirs' });
    const { record } = await vault.manageVaults.createApiKey(theirVault, { roles: ['signer'] });
    const theirs = (await vault.createWallet.execute({ principal: { apiKeyId: record.id, vaultId: theirVault, roles: record.roles }, name: 'sink' })).address;
    await create('retry-3');
    await rewrite('retry-3', (a) => ({ ...a, address: theirs }));
    await expect(create('retry-3')).rejects.toMatchObject({ code: 'WALLET_BINDING_INVALID' });
    // Unreadable text in its place is refused the same way, not a 500.
    await rewrite('retry-3', () => 'not json');
    await expect(create('retry-3')).rejects.toMatchObject({ code: 'WALLET_BINDING_INVALID', message: expect.stringMatching(/names no wallet/) });
  });
});
