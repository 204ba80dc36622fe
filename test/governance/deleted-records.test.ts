import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../lib/index.js';
import { MovableClock } from '../support/movable-clock.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { ethersApprover, openStore, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];
const DAY = 86_400_000;
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const ETHER = 10n ** 18n;

/** Messages at most 2 a day per wallet; transactions at most 1 ETH a day per wallet. */
const LIMITED = {
  version: 2,
  rules: [
    { id: 'messages', effect: 'allow', kinds: ['message'] },
    { id: 'payments', effect: 'allow', kinds: ['transaction'] },
  ],
  limits: [
    { id: 'two-messages', kinds: ['message'], each: 'wallet', maxSigns: 2, per: '1d' },
    { id: 'one-ether', kinds: ['transaction'], each: 'wallet', maxValue: ETHER.toString(), per: '1d' },
  ],
};

const payment = (nonce: number, value: bigint) => ({
  type: 'eip1559',
  chainId: 31337,
  nonce,
  to: RECIPIENT,
  value: value.toString(),
  gas: '21000',
  maxFeePerGas: '2000000000',
  maxPriorityFeePerGas: '1000000000',
});

const codeOf = (p: Promise<unknown>) => p.then(() => 'signed', (e: { code?: string }) => e.code ?? String(e));

/*
 * A database writer resets what a vault's rows count: the signs under a sign limit (to sign past it) and
 * the freezes of a vault (to lift one). Each running instance holds the rows to what it counted itself
 * (docs/security.md, "What a database writer can change"): fewer rows than that is refused, and recorded.
 */
describe.each(DIALECTS)('rows a database writer deletes on %s', (dialect) => {
  let store: Store;
  let server: Vault;
  const clock = new MovableClock();
  clock.freeze();

  beforeAll(async () => {
    store = await openStore(dialect);
    server = await store.open({ clock });
  });
  afterAll(async () => {
    await store?.close();
  });

  const limitedWallet = async (name: string) => {
    const { id: vaultId } = await server.manageVaults.create({ name });
    await server.managePolicies.apply(vaultId, LIMITED);
    const { record } = await server.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    const principal = { apiKeyId: record.id, vaultId, roles: record.roles };
    const { address } = await server.createWallet.execute({ principal, name: 'w' });
    return { vaultId, principal, address };
  };
  /**
   * The writer's SQL, then a turn of the event loop, as a request that follows it would come in (SQLite's
   * guarded reads look at the database's data version once per turn).
   */
  const writersSql = async (text: string, params: unknown[] = []) => {
    await store.sql(text, params);
    await new Promise((resolve) => setImmediate(resolve));
  };
  const trail = async (vaultId: string, action: string) => (await server.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === action);

  it('attack: the counts of a sign limit deleted by SQL: the next sign is refused (SIGN_LIMIT_RECORDS_MISSING), recorded, nothing signed; the limit signs again once its window has passed', async () => {
    const { vaultId, principal, address } = await limitedWallet('count-limit');
    const sign = (message: string) => codeOf(server.signMessage.execute({ principal, address, message }));
    expect([await sign('one'), await sign('two'), await sign('three')]).toEqual(['signed', 'signed', 'SIGN_LIMIT_REACHED']);

    await writersSql('DELETE FROM sign_counts');
    expect(await sign('three again')).toBe('SIGN_LIMIT_RECORDS_MISSING');
    expect(await sign('four')).toBe('SIGN_LIMIT_RECORDS_MISSING');
    expect(await trail(vaultId, 'sign.message')).toHaveLength(2);
    const missing = await trail(vaultId, 'records.missing');
    expect(missing).toHaveLength(1); // once per key and instance; every refusal is sign.denied
    expect(missing[0]!.details).toMatchObject({ table: 'sign_counts', witnessedSigns: '2' });

    clock.advance(DAY);
    expect([await sign('tomorrow'), await sign('tomorrow 2'), await sign('tomorrow 3')]).toEqual(['signed', 'signed', 'SIGN_LIMIT_REACHED']);
  });

  it('attack: the amounts of a value limit deleted by SQL (or rewritten to 0): a second ether in the day is refused, nothing signed', async () => {
    const { vaultId, principal, address } = await limitedWallet('value-limit');
    const pay = (nonce: number, value: bigint) => codeOf(server.signTransaction.execute({ principal, address, transaction: payment(nonce, value) }));
    expect([await pay(0, (ETHER * 3n) / 4n), await pay(1, ETHER / 2n)]).toEqual(['signed', 'SIGN_LIMIT_REACHED']);

    await writersSql("UPDATE sign_value_counts SET amount = '0'");
    expect(await pay(1, ETHER / 2n)).toBe('SIGN_LIMIT_RECORDS_MISSING');
    await writersSql('DELETE FROM sign_value_counts');
    expect(await pay(1, ETHER / 2n)).toBe('SIGN_LIMIT_RECORDS_MISSING');
    expect(await trail(vaultId, 'sign.transaction')).toHaveLength(1);
    expect((await trail(vaultId, 'records.missing'))[0]!.details).toMatchObject({ table: 'sign_value_counts' });
  });

  it('before: a limit whose rows are intact counts on as before (nothing witnessed is missing)', async () => {
    const { principal, address } = await limitedWallet('intact');
    const sign = (message: string) => codeOf(server.signMessage.execute({ principal, address, message }));
    expect(await sign('one')).toBe('signed');
    clock.advance(DAY / 2);
    expect([await sign('two'), await sign('three')]).toEqual(['signed', 'SIGN_LIMIT_REACHED']);
    // The first leaves the window at 24 h; the second (at 12 h) is still in it.
    clock.advance(DAY / 2);
    expect([await sign('four'), await sign('five')]).toEqual(['signed', 'SIGN_LIMIT_REACHED']);
  });

  it('attack: the freeze row of a frozen vault deleted by SQL does not lift the freeze (ungoverned: counts of lifted rows)', async () => {
    const { vaultId, principal, address } = await limitedWallet('frozen');
    const sign = (message: string) => codeOf(server.signMessage.execute({ principal, address, message }));
    await server.governance.freeze(vaultId, 'key may be stolen', 'operator');
    expect(await sign('frozen')).toBe('VAULT_FROZEN');
    await writersSql('DELETE FROM vault_freezes WHERE vault_id = $1', [vaultId]);
    clock.advance(10_000); // past every cache's TTL: the instance reads the rows anew
    expect(await sign('after the delete')).toBe('VAULT_FROZEN');
    const missing = await trail(vaultId, 'records.missing');
    expect(missing.map((r) => r.details)).toEqual([{ table: 'vault_freezes', witnessedFreezes: '1', heldFreezes: '0' }]);
    expect(await trail(vaultId, 'sign.message')).toHaveLength(0);
  });

  it('attack: a governed vault frozen, its newest freeze row deleted by SQL (the state counts lifted freezes): still frozen', async () => {
    const approvers = [ethersApprover(), ethersApprover()];
    const { vaultId, principal, address } = await limitedWallet('frozen-governed');
    const set = await server.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address) }, 'operator');
    if (!('genesis' in set)) throw new Error('expected a genesis');
    const governed = await store.open({ clock, pins: new Map([[vaultId, set.genesis.hash]]) });
    const sign = (message: string) => codeOf(governed.signMessage.execute({ principal, address, message }));
    expect(await sign('before')).toBe('signed');
    await governed.governance.freeze(vaultId, null, 'operator');
    expect(await sign('frozen')).toBe('VAULT_FROZEN');
    await writersSql('DELETE FROM vault_freezes WHERE vault_id = $1', [vaultId]);
    clock.advance(10_000);
    expect(await sign('after the delete')).toBe('VAULT_FROZEN');
    expect(await trail(vaultId, 'sign.message')).toHaveLength(1);
  });
});
