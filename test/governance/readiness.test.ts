import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http-client.js';
import { sample } from '../support/prometheus-sample.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { DOCUMENT, ethersApprover } from './support.js';

const TOKEN = 'an-operator-token-of-some-length';

/*
 * A governed vault whose state does not verify, as operations see it (docs/operations.md): /readyz stays
 * 200 (the other vaults sign) and names it, why only to the operator; the gauge
 * wallet_vault_governance_unverified_vaults counts it; both within the check's 5 s, whether or not
 * anything signs with it, and both clear once it is repaired.
 */
describe('/readyz and the metric of governed vaults that do not verify', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { VAULT_METRICS_TOKEN: TOKEN } });
    s.clock.freeze();
  });
  afterAll(() => s?.stop());

  const sql = (text: string, ...params: unknown[]) => {
    const db = new Database(path.join(s.dataDir, 'vault.db'));
    try {
      db.prepare(text).run(...params);
    } finally {
      db.close();
    }
  };
  const unverifiedGauge = async () => sample((await client(s.url, TOKEN).get('/metrics')).body as string, 'wallet_vault_governance_unverified_vaults');
  const policyRow = (vaultId: string) => {
    const db = new Database(path.join(s.dataDir, 'vault.db'), { readonly: true });
    try {
      return (db.prepare('SELECT policy FROM sign_policies WHERE vault_id = ?').get(vaultId) as { policy: string }).policy;
    } finally {
      db.close();
    }
  };

  it('names the vault (why to the operator), counts it, keeps the instance ready; clears once repaired', async () => {
    const vault = s.server.vault;
    const { id: vaultId } = await vault.manageVaults.create({ name: 'tampered' });
    await vault.managePolicies.apply(vaultId, DOCUMENT as never);
    await vault.governance.set(vaultId, { required: 1, approvers: [ethersApprover().address] }, 'operator');
    const { id: other } = await vault.manageVaults.create({ name: 'untouched' });
    expect((await client(s.url).get('/readyz')).body).toEqual({ status: 'ready' });
    expect(await unverifiedGauge()).toBe(0);

    const signed = policyRow(vaultId);
    sql('UPDATE sign_policies SET policy = ? WHERE vault_id = ?', JSON.stringify({ version: 2, rules: [{ id: 'all', effect: 'allow' }], limits: [] }), vaultId);
    // Nothing signs with it: the next check (at most 5 s after the last) finds it.
    s.clock.advance(5_000);
    const anonymous = await client(s.url).get('/readyz');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toEqual({ status: 'ready', governance: { unverified: [{ vault: vaultId }] } });
    const operator = await client(s.url, TOKEN).get('/readyz');
    expect(operator.body.governance.unverified).toEqual([{ vault: vaultId, problem: expect.stringMatching(/policy row is not the policy of the state in force/) }]);
    expect(await unverifiedGauge()).toBe(1);
    // The other vault is not affected.
    expect((await vault.governance.show(other)).problem).toBeNull();

    sql('UPDATE sign_policies SET policy = ? WHERE vault_id = ?', signed, vaultId);
    s.clock.advance(5_000);
    expect((await client(s.url).get('/readyz')).body).toEqual({ status: 'ready' });
    expect(await unverifiedGauge()).toBe(0);
  });
});
