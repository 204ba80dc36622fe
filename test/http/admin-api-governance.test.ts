import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachBackend, type Target } from '../support/backends.js';
import { client } from '../support/http-client.js';

const ADMIN = '/api/v1/admin';
const PUBLIC_URL = 'https://vault.example.test';
const APPROVERS = ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'];
const POLICY = { version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }] };

/*
 * The admin API's approvers, webhooks, governance and unfreeze (docs/operators.md): what the CLI did, by a
 * named operator, each change in the audit trail under `operator:<name>`; on a governed vault a change is
 * a proposal.
 */
describeEachBackend('the admin API: approvers, webhooks, governance', (backend) => {
  let s: Target;
  const credentials: Record<string, string> = {};
  const as = (name: string) => client(s.url, credentials[name]);
  const trail = async (vaultId: string, actions: string[]) =>
    (await s.vault.listAuditRecords.execute({ limit: 1000 })).filter((r) => r.vaultId === vaultId && actions.includes(r.action)).map((r) => [r.action, r.actor]);

  beforeAll(async () => {
    s = await backend.start({ publicUrl: PUBLIC_URL });
    const make = async (name: string, roles: string) => (credentials[name] = (await s.vault.manageOperators.create({ name, roles })).credential);
    await make('alice', 'vault-admin');
    await make('bob', 'key-admin');
    await make('carol', 'auditor');
  });
  afterAll(async () => {
    await s?.close();
  });

  it('invites, lists and revokes approvers; adds, lists, replays and removes a webhook; each audited under the operator', async () => {
    const vault = (await s.vault.manageVaults.create({ name: 'hooks' })).id;
    const invite = await as('bob').post(`${ADMIN}/vaults/${vault}/approvers/invites`, { expires: '1h', group: 'treasury' });
    expect(invite.status).toBe(200);
    expect(invite.body.data.url).toMatch(new RegExp(`^${PUBLIC_URL}/console/#enrol=`));
    expect(invite.body.data.governed).toBe(false);
    expect((await as('carol').get(`${ADMIN}/vaults/${vault}/approvers`)).body.data).toEqual([]);
    // An approver is an API key: revoking one revokes its key.
    const key = (await s.vault.manageVaults.createApiKey(vault, { roles: ['approver'] })).record.id;
    expect((await as('bob').delete(`${ADMIN}/vaults/${vault}/approvers/${key}`)).body.data).toEqual({ id: key, revoked: true });

    const added = await as('alice').post(`${ADMIN}/vaults/${vault}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['approval.requested'] });
    expect(added.status).toBe(200);
    expect(added.body.data).toMatchObject({ vault, url: 'http://127.0.0.1:9/hook', events: ['approval.requested'], deliveredSeq: expect.any(Number) });
    const hook = added.body.data.id as string;
    expect(((await as('carol').get(`${ADMIN}/vaults/${vault}/webhooks`)).body.data as { id: string }[]).map((w) => w.id)).toEqual([hook]);
    const replayed = await as('alice').post(`${ADMIN}/vaults/${vault}/webhooks/${hook}/replay`, { fromSeq: 1 });
    expect([replayed.status, replayed.body.data.fromSeq]).toEqual([200, 1]);
    expect((await as('alice').delete(`${ADMIN}/vaults/${vault}/webhooks/${hook}`)).body.data).toEqual({ vault, id: hook, removed: true });

    expect(await trail(vault, ['approver.invited', 'api-key.revoked', 'webhook.changed'])).toEqual([
      ['approver.invited', 'operator:bob'],
      ['api-key.revoked', 'operator:bob'],
      ['webhook.changed', 'operator:alice'],
      ['webhook.changed', 'operator:alice'],
      ['webhook.changed', 'operator:alice'],
    ]);
  });

  it('governs a vault; then a policy, a webhook and an unfreeze are proposals, listed and shown; each audited under the operator', async () => {
    const vault = (await s.vault.manageVaults.create({ name: 'governed' })).id;
    // Unfrozen at once while the vault is not governed.
    expect((await as('bob').post(`${ADMIN}/vaults/${vault}/freeze`, {})).status).toBe(200);
    expect((await as('alice').post(`${ADMIN}/vaults/${vault}/unfreeze`)).body.data).toEqual({ vault, lifted: 1 });

    const set = await as('alice').put(`${ADMIN}/vaults/${vault}/governance`, { required: 2, approvers: APPROVERS });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ vault, genesis: expect.stringMatching(/^0x[0-9a-f]{64}$/), pin: `VAULT_GOVERNANCE_PINS=${vault}:${set.body.data.genesis}` });
    const shown = (await as('carol').get(`${ADMIN}/vaults/${vault}/governance`)).body.data;
    expect(shown).toMatchObject({ vault, governed: true, genesisHash: set.body.data.genesis, frozen: false });

    const policy = await as('alice').put(`${ADMIN}/vaults/${vault}/policy`, POLICY);
    expect(policy.body.data.proposal).toMatchObject({ id: expect.any(String) });
    const hook = await as('alice').post(`${ADMIN}/vaults/${vault}/webhooks`, { url: 'http://127.0.0.1:9/hook' });
    expect(hook.body.data.proposal).toMatchObject({ id: expect.any(String) });
    await as('bob').post(`${ADMIN}/vaults/${vault}/freeze`, { reason: 'drill' });
    const unfreeze = await as('alice').post(`${ADMIN}/vaults/${vault}/unfreeze`);
    expect(unfreeze.body.data.proposal).toMatchObject({ id: expect.any(String) });
    expect((await s.vault.governance.show(vault)).frozen).toMatchObject({ freezes: 2, lifted: 1 });
    const again = await as('alice').put(`${ADMIN}/vaults/${vault}/governance`, { required: 1, approvers: [APPROVERS[0]], delay: '1h' });
    expect(again.body.data.proposal).toMatchObject({ id: expect.any(String) });
    expect(again.body.data.warnings[0]).toMatch(/^--required 1/);

    const page = (await as('carol').get(`${ADMIN}/vaults/${vault}/proposals`)).body.data as { count: number; page: { id: string; creator: string; status: string }[] };
    expect(page.count).toBe(4);
    expect(page.page.map((p) => p.creator)).toEqual(['operator:alice', 'operator:alice', 'operator:alice', 'operator:alice']);
    const one = await as('carol').get(`${ADMIN}/vaults/${vault}/proposals/${unfreeze.body.data.proposal.id}`);
    expect(one.body.data).toMatchObject({ id: unfreeze.body.data.proposal.id, status: 'pending', required: 2, approvalCount: 0 });
    expect(one.body.data.typedData).toBeDefined();
    const missing = await as('carol').get(`${ADMIN}/vaults/${vault}/proposals/0190f7e2-5b7a-7c3e-9d4f-2a1b3c4d5e6f`);
    expect([missing.status, missing.body.code]).toEqual([404, 'PROPOSAL_NOT_FOUND']);

    const actors = await trail(vault, ['governance.set', 'governance.proposed', 'vault.unfrozen']);
    expect(actors.length).toBeGreaterThanOrEqual(5);
    expect(new Set(actors.map(([, actor]) => actor))).toEqual(new Set(['operator:alice']));
  });

  it('refuses what a role does not allow and bad input with a 4xx naming the field; nothing changes', async () => {
    const vault = (await s.vault.manageVaults.create({ name: 'refusals' })).id;
    const refused = await as('bob').post(`${ADMIN}/vaults/${vault}/webhooks`, { url: 'http://127.0.0.1:9/hook' });
    expect([refused.status, refused.body.error]).toEqual([403, 'operator bob (roles key-admin) may not do this (webhooks.change): it needs the role vault-admin']);
    expect((await as('carol').post(`${ADMIN}/vaults/${vault}/approvers/invites`, {})).status).toBe(403);
    expect((await as('bob').put(`${ADMIN}/vaults/${vault}/governance`, { required: 1, approvers: APPROVERS })).status).toBe(403);
    expect((await as('bob').post(`${ADMIN}/vaults/${vault}/unfreeze`)).status).toBe(403);

    const cases: [string, 'post' | 'put', string, unknown, string][] = [
      ['alice', 'post', '/webhooks', {}, 'url: is required'],
      ['alice', 'post', '/webhooks', { url: 'ftp://example.com/x' }, ''],
      ['alice', 'post', '/webhooks', { url: 'https://example.com/x', events: 'all' }, 'events: must be an array of event types'],
      ['alice', 'post', '/webhooks', { url: 'https://example.com/x', secret: 'x' }, 'secret: is not a field of this request (url, events)'],
      ['bob', 'post', '/approvers/invites', { expires: 'forever' }, ''],
      ['bob', 'post', '/approvers/invites', { group: 7 }, 'group: must be a string'],
      ['alice', 'put', '/governance', { required: 2 }, 'approvers: is required'],
      ['alice', 'put', '/governance', { required: 'two', approvers: APPROVERS }, 'required: must be a whole number'],
      ['alice', 'put', '/governance', { required: 3, approvers: APPROVERS }, ''],
    ];
    for (const [who, method, path, body, error] of cases) {
      const answer = await as(who)[method](`${ADMIN}/vaults/${vault}${path}`, body);
      expect(answer.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body.code).toBe('INVALID_ARGUMENT');
      if (error !== '') expect(answer.body.error).toBe(error);
      else expect(answer.body.error).toMatch(/^(url|expires|required|approvers):/);
    }
    expect(await s.vault.manageWebhooks.list(vault)).toEqual([]);
    expect((await s.vault.governance.show(vault)).governed).toBe(false);
    const replay = await as('alice').post(`${ADMIN}/vaults/${vault}/webhooks/nope/replay`, { fromSeq: 0 });
    expect([replay.status, replay.body.error]).toEqual([400, 'fromSeq: an audit seq, a whole number of at least 1']);
    const unknown = await as('alice').delete(`${ADMIN}/vaults/${vault}/webhooks/nope`);
    expect([unknown.status, unknown.body.error]).toEqual([400, `id: vault ${vault} has no webhook endpoint nope`]);
  });
});
