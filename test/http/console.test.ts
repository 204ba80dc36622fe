import { Interface } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_PAGE_CHARS } from '../../src/application/approvals/approval-view.js';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import { describeEachBackend, type Target } from '../support/backends.js';
import { client } from '../support/http-client.js';
import { LOCAL_CONTRACT, LOCAL_UNIQ, localSignBody, MINT_TO } from '../support/sign-request.js';
import { SoftwareAuthenticator } from '../support/software-authenticator.js';
import { asJson, permit, permitBatch } from '../support/typed-data-fixtures.js';
import { sqlSessionOn, type SqlSession } from '../support/sql-session.js';

/*
 * The approvers' console over HTTP (issue 36, docs/console.md), with a software authenticator in place of
 * the browser's: invite, enrolment, sessions, an approval seen decoded with the operator's names, passkey
 * votes that release the signature, and each forgery refused with nothing written.
 */

const PUBLIC_URL = 'https://vault.example';
const RP = { origin: PUBLIC_URL, rpId: 'vault.example' } as const;
const CSRF = { 'x-requested-with': 'wallet-vault-console' } as const;
// The operator's names differ from the requester's ABI (to, amount): the console shows the operator's.
const OPERATOR_MINT = 'mint(address recipient, uint256 quantity, (bytes32,bytes32,bytes32,uint8) sig)';

describeEachBackend("approvers' console over HTTP", (backend) => {
  let s: Target;
  let sql: SqlSession;

  beforeAll(async () => {
    s = await backend.start({ publicUrl: PUBLIC_URL });
    sql = await sqlSessionOn(s.dataDir, s.database?.url);
  });
  afterAll(async () => {
    await sql?.close();
    await s?.close();
  });

  const http = client('');
  const at = (path: string) => `${s.url}${path}`;
  const post = (path: string, body: unknown, cookie?: string, headers: Record<string, string> = CSRF) =>
    http.post(at(`/console/api${path}`), body, { ...headers, ...(cookie ? { cookie } : {}) });
  const get = (path: string, cookie?: string) => http.get(at(`/console/api${path}`), cookie ? { cookie } : {});
  const cookieOf = (setCookie: string | null): string => {
    const match = /wallet_vault_console=([^;]*)/.exec(setCookie ?? '');
    expect(match?.[1]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    return `wallet_vault_console=${match![1]}`;
  };
  const tokenOf = (url: string) => url.slice(url.indexOf('#enrol=') + '#enrol='.length);

  /** Invited and enrolled through the API: the approver, its authenticator and its session cookie. */
  const enrol = async (vaultId: string, name: string, group?: string) => {
    const { url } = await s.vault.consoleInvites.invite(vaultId, group ? { group } : {});
    expect(url.startsWith(`${PUBLIC_URL}/console/#enrol=`)).toBe(true);
    const token = tokenOf(url);
    const options = await post('/enrol/options', { token });
    expect(options.status).toBe(200);
    expect(options.body.options.rp.id).toBe(RP.rpId);
    const authenticator = new SoftwareAuthenticator();
    const enrolled = await post('/enrol', { token, name, response: authenticator.register(options.body.options, RP) });
    expect(enrolled.status).toBe(201);
    return { authenticator, cookie: cookieOf(enrolled.headers.get('set-cookie')), approver: enrolled.body.approver, token };
  };

  /** A vault whose mints need `required` approvals (rule with the operator's names), a signer key and its wallet. */
  const heldVault = async (name: string, required = 2) => {
    const { vaultId, base } = await s.vaultWithKey(name);
    const { apiKey } = await s.vault.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] as ApiKeyRole[] });
    const requester = client(s.url, apiKey);
    const signer: string = (await requester.post(`${base}/wallets`, { name: 'treasury' })).body.data.address;
    await s.vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [{ id: 'mint-hold', effect: { hold: { required } }, kinds: ['call'], function: OPERATOR_MINT, description: 'Mints need approvers' }],
      limits: [],
      // The operator's name of the contract (the request gives its address in lower case): approvers see it beside the address.
      contractNames: { [LOCAL_CONTRACT]: 'Reward token' },
    });
    const hold = async (amount = '20000') => {
      const held = await requester.post(`${base}/sign`, localSignBody(signer, { args: [MINT_TO, amount] }));
      expect(held.status).toBe(202);
      return held.body.data.approval.id as string;
    };
    return { vaultId, base, requester, signer, hold };
  };

  /** The options of a decision, and an assertion over their challenge (or over `challenge` when given). */
  const decide = async (who: { authenticator: SoftwareAuthenticator; cookie: string }, id: string, decision: 'approve' | 'reject', o: { origin?: string; challenge?: string; by?: SoftwareAuthenticator } = {}) => {
    const options = await post(`/approvals/${id}/challenge`, { decision }, who.cookie);
    expect(options.status).toBe(200);
    expect(options.body.options.allowCredentials.map((c: { id: string }) => c.id)).toEqual([who.authenticator.id]);
    const response = (o.by ?? who.authenticator).assert(o.challenge ?? options.body.options.challenge, { ...RP, origin: o.origin ?? RP.origin });
    return post(`/approvals/${id}/${decision}`, { response }, who.cookie);
  };

  const votesOf = async (vaultId: string, id: string) => (await s.vault.getApproval.execute(vaultId, id)).votes;

  it('invite → enrol → session → the held sign decoded with the operator\'s names → two passkey approvals release its signature', async () => {
    const v = await heldVault('console-approve');
    const alice = await enrol(v.vaultId, 'Alice (finance)');
    const bob = await enrol(v.vaultId, 'Bob (compliance)');
    expect(alice.approver).toMatchObject({ name: 'Alice (finance)', vault: v.vaultId, vaultName: 'console-approve', group: null });
    // An approver is an API key: listed, with the approver role only.
    const key = (await s.vault.manageVaults.listApiKeys(v.vaultId)).find((k) => k.id === alice.approver.id)!;
    expect(key.roles).toEqual(['approver']);

    expect((await get('/session', alice.cookie)).body.approver.id).toBe(alice.approver.id);
    const id = await v.hold();
    const pending = await get('/approvals?state=pending', alice.cookie);
    expect(pending.status).toBe(200);
    expect(pending.body.approvals.map((a: { id: string }) => a.id)).toEqual([id]);
    const detail = await get(`/approvals/${id}`, alice.cookie);
    expect(detail.status).toBe(200);
    const view = detail.body.approval;
    expect(view).toMatchObject({
      vaultName: 'console-approve',
      kind: 'call',
      status: 'pending',
      required: 2,
      rule: 'mint-hold',
      ruleDescription: 'Mints need approvers',
      wallet: { name: 'treasury' },
      chain: { name: 'local' },
      function: { name: 'mint', signature: 'mint(address,uint256,(bytes32,bytes32,bytes32,uint8))' },
    });
    // Both spellings read as one address: the name given under the lower-case key, the address shown EIP-55.
    expect(view.contract).toEqual({ address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', name: 'Reward token' });
    // The vault's API names it too, beside the call's contract (GET …/approvals/{id} and the list).
    expect((await v.requester.get(`${v.base}/approvals/${id}`)).body.data.request).toMatchObject({ contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3', contractName: 'Reward token' });
    expect((await v.requester.get(`${v.base}/approvals`)).body.data.page.find((a: { id: string }) => a.id === id).request.contractName).toBe('Reward token');
    expect(view.function.args).toEqual([
      { name: 'recipient', type: 'address', value: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
      { name: 'quantity', type: 'uint256', value: '20000' },
    ]);
    expect(detail.body.audit.map((r: { action: string }) => r.action)).toContain('approval.requested');
    // The page's headers on the API too.
    expect(detail.headers.get('content-security-policy')).toContain("default-src 'none'");

    const first = await decide(alice, id, 'approve');
    expect(first.status).toBe(200);
    expect(first.body.approval).toMatchObject({ status: 'pending', approvals: 1 });
    expect(first.body.approval.votes).toEqual([expect.objectContaining({ approver: { id: alice.approver.id, name: 'Alice (finance)', label: null }, decision: 'approve', kind: 'passkey' })]);
    const second = await decide(bob, id, 'approve');
    expect(second.status).toBe(200);
    expect(second.body.approval.status).toBe('approved');
    expect(second.body.approval.result.submissionHash).toMatch(/^0x[0-9a-f]{64}$/);
    // The history shows it decided, with both votes.
    const history = await get('/history', bob.cookie);
    expect(history.body.approvals.find((a: { id: string }) => a.id === id).votes).toHaveLength(2);
  });

  it('a second approver rejects another request: rejected, nothing signed', async () => {
    const v = await heldVault('console-reject');
    const alice = await enrol(v.vaultId, 'Alice');
    const bob = await enrol(v.vaultId, 'Bob');
    const id = await v.hold();
    expect((await decide(alice, id, 'approve')).status).toBe(200);
    const rejected = await decide(bob, id, 'reject');
    expect(rejected.status).toBe(200);
    expect(rejected.body.approval).toMatchObject({ status: 'rejected', result: null });
  });

  it('a frozen vault: approvers still see its held signs decoded and reject them; an approval that would release is refused', async () => {
    const v = await heldVault('console-frozen', 1);
    const alice = await enrol(v.vaultId, 'Alice');
    const [rejectMe, approveMe] = [await v.hold(), await v.hold('30000')];
    await s.vault.governance.freeze(v.vaultId, 'approver key may be stolen', 'operator');
    const pending = await get('/approvals?state=pending', alice.cookie);
    expect(pending.status).toBe(200);
    expect(pending.body.approvals.map((a: { id: string }) => a.id).sort()).toEqual([rejectMe, approveMe].sort());
    const shown = await get(`/approvals/${rejectMe}`, alice.cookie);
    expect(shown.status).toBe(200);
    expect(shown.body.approval.function.args.map((a: { name: string }) => a.name)).toEqual(['recipient', 'quantity']);
    expect(shown.body.approval.contract.name).toBe('Reward token');
    const rejected = await decide(alice, rejectMe, 'reject');
    expect(rejected.status).toBe(200);
    expect(rejected.body.approval).toMatchObject({ status: 'rejected', result: null });
    const approved = await decide(alice, approveMe, 'approve');
    expect(approved.status).toBe(403);
    expect(approved.body.code).toBe('VAULT_FROZEN');
  });

  it('a forged assertion (wrong credential, wrong challenge, wrong origin) is 403 APPROVAL_SIGNATURE_INVALID and writes nothing', async () => {
    const v = await heldVault('console-forged');
    const alice = await enrol(v.vaultId, 'Alice');
    const id = await v.hold();
    const other = await v.hold('30000');
    const otherOptions = await post(`/approvals/${other}/challenge`, { decision: 'approve' }, alice.cookie);
    const forgeries = {
      // Another authenticator's key, under the session's credential id or its own.
      'wrong credential': await decide(alice, id, 'approve', { by: new SoftwareAuthenticator() }),
      // The Decision of another approval, and the reject of this one, signed for approve.
      'challenge of another approval': await decide(alice, id, 'approve', { challenge: otherOptions.body.options.challenge }),
      'wrong decision': await (async () => {
        const rejectOptions = await post(`/approvals/${id}/challenge`, { decision: 'reject' }, alice.cookie);
        return post(`/approvals/${id}/approve`, { response: alice.authenticator.assert(rejectOptions.body.options.challenge, RP) }, alice.cookie);
      })(),
      'wrong origin': await decide(alice, id, 'approve', { origin: 'https://evil.example' }),
    };
    for (const [what, answer] of Object.entries(forgeries)) {
      expect([what, answer.status, answer.body.code]).toEqual([what, 403, 'APPROVAL_SIGNATURE_INVALID']);
    }
    // An assertion of another (valid) passkey signed for the other authenticator's id: still not this session's.
    const mallory = await enrol(v.vaultId, 'Mallory');
    const options = await post(`/approvals/${id}/challenge`, { decision: 'approve' }, alice.cookie);
    const foreign = await post(`/approvals/${id}/approve`, { response: mallory.authenticator.assert(options.body.options.challenge, RP) }, alice.cookie);
    expect([foreign.status, foreign.body.code]).toEqual([403, 'APPROVAL_SIGNATURE_INVALID']);
    expect(await votesOf(v.vaultId, id)).toEqual([]);
    // A replayed assertion (the counter did not grow) is refused too.
    const good = await post(`/approvals/${id}/challenge`, { decision: 'approve' }, alice.cookie);
    const assertion = alice.authenticator.assert(good.body.options.challenge, RP);
    alice.authenticator.counter -= 5;
    const stale = await post(`/approvals/${id}/approve`, { response: alice.authenticator.assert(good.body.options.challenge, RP) }, alice.cookie);
    expect([stale.status, stale.body.code]).toEqual([403, 'APPROVAL_SIGNATURE_INVALID']);
    expect(await votesOf(v.vaultId, id)).toEqual([]);
    // Each refusal is on record for the auditor (auth.refused), none as a vote.
    const refused = (await s.vault.listAuditRecords.execute({ vaultId: v.vaultId, limit: 1000 })).filter((r) => r.action === 'auth.refused' && r.details.approval === id);
    expect(refused.map((r) => r.details.reason)).toEqual([
      'assertion of another credential',
      'assertion not over this Decision at this origin',
      'assertion not over this Decision at this origin',
      'assertion not over this Decision at this origin',
      'assertion of another credential',
      'authenticator counter did not grow',
    ]);
    const counted = await post(`/approvals/${id}/approve`, { response: assertion }, alice.cookie);
    expect(counted.status).toBe(200);
    expect((await votesOf(v.vaultId, id)).map((x) => x.apiKeyId)).toEqual([alice.approver.id]);
  });

  it('an invite is one-time and expires; an unknown one is refused', async () => {
    const { vaultId } = await s.vaultWithKey('console-invites');
    const alice = await enrol(vaultId, 'Alice');
    const again = await post('/enrol/options', { token: alice.token });
    expect([again.status, again.body.code]).toEqual([401, 'UNAUTHENTICATED']);
    const { url } = await s.vault.consoleInvites.invite(vaultId, { expiresMs: 60_000 });
    const options = await post('/enrol/options', { token: tokenOf(url) });
    expect(options.status).toBe(200);
    s.clock.advance(61_000);
    const late = await post('/enrol', { token: tokenOf(url), name: 'Late', response: new SoftwareAuthenticator().register(options.body.options, RP) });
    expect([late.status, late.body.code]).toEqual([401, 'UNAUTHENTICATED']);
    expect(late.body.error).toMatch(/expired/);
    expect((await post('/enrol/options', { token: 'A'.repeat(43) })).status).toBe(401);
    expect((await post('/enrol/options', { token: 'short' })).status).toBe(400);
    expect((await s.vault.manageVaults.listApiKeys(vaultId)).filter((k) => k.roles.join() === 'approver')).toHaveLength(1);
  });

  it('sign-in with the passkey; a session ended (DELETE), idle 15 minutes, or of a revoked key is refused', async () => {
    const { vaultId } = await s.vaultWithKey('console-sessions');
    const alice = await enrol(vaultId, 'Alice');
    const options = await post('/session/options', {});
    expect(options.body.options.rpId).toBe(RP.rpId);
    const signedIn = await post('/session', { response: alice.authenticator.assert(options.body.options.challenge, RP) });
    expect(signedIn.status).toBe(200);
    const cookie = cookieOf(signedIn.headers.get('set-cookie'));
    expect(signedIn.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict; Path=\/console; Max-Age=28800; Secure/);
    // The challenge is one use.
    const replay = await post('/session', { response: alice.authenticator.assert(options.body.options.challenge, RP) });
    expect(replay.status).toBe(401);
    // Without the CSRF header, nothing changes.
    expect((await post('/session', {}, cookie, {})).body.code).toBe('CONSOLE_CSRF_HEADER_MISSING');
    expect((await get('/session', cookie)).status).toBe(200);
    const ended = await http.delete(at('/console/api/session'), { ...CSRF, cookie });
    expect(ended.status).toBe(204);
    expect(ended.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await get('/session', cookie)).status).toBe(401);
    // Idle: the enrolment's session, 15 minutes untouched.
    s.clock.advance(15 * 60_000);
    expect((await get('/session', alice.cookie)).status).toBe(401);
    // Revoked: a fresh session, then the key revoked (api-keys revoke).
    const again = await post('/session/options', {});
    const fresh = cookieOf((await post('/session', { response: alice.authenticator.assert(again.body.options.challenge, RP) })).headers.get('set-cookie'));
    expect((await get('/session', fresh)).status).toBe(200);
    await s.vault.manageVaults.revokeApiKey(alice.approver.id);
    const revoked = await get('/session', fresh);
    expect([revoked.status, revoked.body.error]).toEqual([401, expect.stringMatching(/revoked/)]);
    const noSignIn = await post('/session/options', {});
    expect((await post('/session', { response: alice.authenticator.assert(noSignIn.body.options.challenge, RP) })).status).toBe(401);
    const actions = (await s.vault.listAuditRecords.execute({ vaultId, limit: 1000 })).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['approver.invited', 'approver.enrolled', 'approver.session-started', 'approver.session-ended']));
  });

  it('a passkey vote inserted by SQL (copied from another approval) counts for nothing at release', async () => {
    const v = await heldVault('console-sql-vote');
    const alice = await enrol(v.vaultId, 'Alice');
    const bob = await enrol(v.vaultId, 'Bob');
    const first = await v.hold();
    const second = await v.hold('30000');
    expect((await decide(alice, first, 'approve')).status).toBe(200);
    // Alice's vote row on the first approval, copied to the second by someone with the database.
    expect(
      await sql.run('INSERT INTO approval_votes (approval_id, api_key_id, vote, at, signature) SELECT ?, api_key_id, vote, at, signature FROM approval_votes WHERE approval_id = ?', [second, first]),
    ).toBe(1);
    const completing = await decide(bob, second, 'approve');
    expect(completing.status).toBe(200);
    expect(completing.body.approval).toMatchObject({ status: 'pending', result: null });
    const invalid = (await s.vault.listAuditRecords.execute({ vaultId: v.vaultId, limit: 1000 })).filter((r) => r.action === 'approval.vote-invalid');
    expect(invalid.map((r) => [r.subject, r.details.votes, r.details.released])).toEqual([[second, `api-key:${alice.approver.id}`, false]]);
  });

  it('a held transaction shows its value and most fee; held typed data its fields one by one', async () => {
    const { vaultId, api, base } = await s.vaultWithKey('console-standard');
    const wallet: string = (await api.post(`${base}/wallets`, { name: 'payroll' })).body.data.address;
    const recipient = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
    const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    await s.vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [
        { id: 'pay', effect: 'allow', kinds: ['transaction'], contracts: [recipient], maxValue: '1000' },
        { id: 'permits', effect: 'allow', kinds: ['typed-data'], contracts: [token] },
        { id: 'four-eyes', effect: { hold: { required: 2 } }, kinds: ['transaction', 'typed-data'], description: 'Payments need two' },
      ],
      limits: [],
      // The token is named; the recipient is not, so its view has the address alone.
      contractNames: { [token]: 'Settlement token' },
    });
    const alice = await enrol(vaultId, 'Alice');
    const tx = { type: 'eip1559', chainId: 31337, nonce: 0, to: recipient, value: '1000', gas: '21000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000000' };
    const heldTx = await api.post(`${base}/wallets/${wallet}/sign-transaction`, tx);
    expect(heldTx.status).toBe(202);
    const typed = permit({ name: 'Token', version: '1', chainId: 31337, verifyingContract: token as `0x${string}` }, { owner: wallet as `0x${string}`, spender: recipient as `0x${string}`, value: 5n, nonce: 0n, deadline: 2n ** 40n });
    const heldTd = await api.post(`${base}/wallets/${wallet}/sign-typed-data`, asJson(typed));
    expect(heldTd.status).toBe(202);
    const txView = (await get(`/approvals/${heldTx.body.data.approval.id}`, alice.cookie)).body.approval;
    expect(txView).toMatchObject({
      kind: 'transaction', value: '1000', fee: String(21000n * 2000000000n), chain: { id: '31337' }, contract: { address: recipient, name: null },
      wallet: { address: wallet, name: 'payroll' }, rule: 'four-eyes', ruleDescription: 'Payments need two', function: null, typedData: null,
    });
    expect(txView.wallet.derivationPath).toBeUndefined();
    // An HD wallet's request says which key of the vault's seed signs it.
    const hd = (await api.post(`${base}/wallets`, { name: 'hd-payroll', derivation: 'hd' })).body.data;
    const heldHd = await api.post(`${base}/wallets/${hd.address}/sign-transaction`, { ...tx, nonce: 1 });
    expect(heldHd.status).toBe(202);
    const hdView = (await get(`/approvals/${heldHd.body.data.approval.id}`, alice.cookie)).body.approval;
    expect(hdView.wallet).toEqual({ address: hd.address, name: 'hd-payroll', derivationPath: hd.derivationPath });
    expect(hd.derivationPath).toMatch(/^m\/44'\/60'\/0'\/0\/\d+$/);
    const tdView = (await get(`/approvals/${heldTd.body.data.approval.id}`, alice.cookie)).body.approval;
    expect(tdView.kind).toBe('typed-data');
    expect(tdView.contract).toEqual({ address: token, name: 'Settlement token' });
    expect(tdView.typedData.primaryType).toBe('Permit');
    expect(tdView.typedData.fields.map((f: { path: string; type: string; value: unknown }) => [f.path, f.type, String(f.value)])).toEqual([
      ['owner', 'address', wallet],
      ['spender', 'address', recipient],
      ['value', 'uint256', '5'],
      ['nonce', 'uint256', '0'],
      ['deadline', 'uint256', String(2n ** 40n)],
    ]);
  });

  it("every field that is signed: a transaction's calldata raw (decoded too by any rule's function), typed data by pages with their total, a Sign's uniq, signer and pin", async () => {
    const { vaultId, api, base } = await s.vaultWithKey('console-complete');
    const wallet: string = (await api.post(`${base}/wallets`, { name: 'ops' })).body.data.address;
    const token = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
    const payroll = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
    const recipient = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const hold = { hold: { required: 1 } } as const;
    await s.vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [
        // Another contract's rule names transfer: the operator's names of its arguments, whatever rule holds it.
        { id: 'no-usdt-transfers', effect: 'deny', kinds: ['transaction'], contracts: ['0xdAC17F958D2ee523a2206206994597C13D831ec7'], function: 'transfer(address recipient, uint256 units)' },
        { id: 'hold-all', effect: hold, kinds: ['transaction', 'typed-data', 'call'] },
      ],
      limits: [],
      uniqs: { [LOCAL_CONTRACT]: LOCAL_UNIQ },
      contractNames: { [LOCAL_CONTRACT]: 'Reward token', [payroll]: 'Payroll vault' },
    });
    const alice = await enrol(vaultId, 'Alice');
    const view = async (id: string) => (await get(`/approvals/${id}`, alice.cookie)).body.approval;
    const held = async (path: string, body: unknown) => {
      const r = await api.post(`${base}${path}`, body);
      expect(r.status).toBe(202);
      return r.body.data.approval.id as string;
    };
    const tx = (data: string) => ({ type: 'eip1559', chainId: 31337, nonce: 3, to: token, value: '0', data, gas: '90000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1' });

    // A transfer: decoded with the other rule's names, and its calldata raw beside it.
    const transfer = new Interface(['function transfer(address, uint256)']).encodeFunctionData('transfer', [recipient, 10_000_000n]);
    const decoded = await view(await held(`/wallets/${wallet}/sign-transaction`, tx(transfer)));
    expect(decoded.function).toEqual({
      signature: 'transfer(address,uint256)',
      name: 'transfer',
      args: [
        { name: 'recipient', type: 'address', value: recipient },
        { name: 'units', type: 'uint256', value: '10000000' },
      ],
    });
    expect(decoded.transaction).toEqual({
      calldata: transfer.toLowerCase(),
      selector: '0xa9059cbb',
      fields: { type: 'eip1559', chainId: 31337, nonce: 3, to: token, value: '0', gas: '90000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1' },
    });
    // A function no rule names: the calldata raw, never omitted.
    const unknown = `0xdeadbeef${'00'.repeat(31)}2a`;
    const raw = await view(await held(`/wallets/${wallet}/sign-transaction`, tx(unknown)));
    expect([raw.function, raw.transaction.calldata, raw.transaction.selector]).toEqual([null, unknown, '0xdeadbeef']);

    // A batch permit of 51 entries: 206 fields, the first 200 in the view, the rest a page away.
    const amounts = Array.from({ length: 51 }, (_, i) => BigInt(i + 1));
    const batchId = await held(`/wallets/${wallet}/sign-typed-data`, permitBatch({ token, amounts, spender: recipient }));
    const batch = await view(batchId);
    expect([batch.typedData.fields.length, batch.typedData.fieldCount]).toEqual([200, 206]);
    expect(batch.typedData.fields.at(-1)).toEqual({ path: 'details[49].nonce', type: 'uint48', value: '49' });
    const rest = await get(`/approvals/${batchId}/fields?offset=200`, alice.cookie);
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual({
      offset: 200,
      total: 206,
      fields: [
        { path: 'details[50].token', type: 'address', value: token },
        { path: 'details[50].amount', type: 'uint160', value: '51' },
        { path: 'details[50].expiration', type: 'uint48', value: '1798761600' },
        { path: 'details[50].nonce', type: 'uint48', value: '50' },
        { path: 'spender', type: 'address', value: recipient },
        { path: 'sigDeadline', type: 'uint256', value: '1798761600' },
      ],
    });
    expect((await get(`/approvals/${batchId}/fields?offset=206`, alice.cookie)).body).toEqual({ offset: 206, total: 206, fields: [] });
    for (const offset of ['-1', 'two', '1e3']) {
      const bad = await get(`/approvals/${batchId}/fields?offset=${offset}`, alice.cookie);
      expect([offset, bad.status, bad.body.code, bad.body.error]).toEqual([offset, 400, 'INVALID_ARGUMENT', expect.stringMatching(/^offset: /)]);
    }
    expect((await get(`/approvals/${batchId}/fields`, alice.cookie)).body.offset).toBe(0);
    expect((await get(`/approvals/${batchId}/fields`)).status).toBe(401);
    // A page is bounded in text too: ten notes of 30,000 characters come two to a page.
    const notes = {
      domain: { name: 'Notes', chainId: 1 },
      types: { Notes: [{ name: 'notes', type: 'string[]' }] },
      primaryType: 'Notes',
      message: { notes: Array.from({ length: 10 }, (_, i) => String(i).repeat(30_000)) },
    };
    const notesId = await held(`/wallets/${wallet}/sign-typed-data`, notes);
    const notesView = await view(notesId);
    expect([notesView.typedData.fields.length, notesView.typedData.fieldCount]).toEqual([2, 10]);
    const second = (await get(`/approvals/${notesId}/fields?offset=2`, alice.cookie)).body;
    expect(second.fields.map((f: { path: string }) => f.path)).toEqual(['notes[2]', 'notes[3]']);
    expect(JSON.stringify(second.fields).length).toBeLessThan(FIELD_PAGE_CHARS + 1000);
    const notTyped = await get(`/approvals/${await held('/sign', localSignBody(wallet))}/fields?offset=0`, alice.cookie);
    expect([notTyped.status, notTyped.body.error]).toEqual([400, expect.stringMatching(/holds no typed data/)]);

    // A Sign naming Payroll vault with the uniq pinned for Reward token: the signature is Reward token's.
    const asideHeld = await api.post(`${base}/sign`, localSignBody(wallet, { contract: payroll.toLowerCase() }));
    const aside: string = asideHeld.body.data.approval.id;
    // The answer that holds it reads no policy: it says nothing of the pin rather than something untrue.
    expect(asideHeld.body.data.approval.request).toMatchObject({ uniq: LOCAL_UNIQ, signer: wallet });
    expect(asideHeld.body.data.approval.request).not.toHaveProperty('uniqBinding');
    const pinnedElsewhere = {
      pinnedFor: [{ address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', name: 'Reward token' }],
      contractPin: null,
      warning: `This uniq is the one the policy pins for Reward token (0x5FbDB2315678afecb367f032d93F642f64180aa3), not for Payroll vault (${payroll}): the signature is valid on that contract, whatever contract the request names.`,
    };
    expect((await view(aside)).call).toEqual({ sender: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', uniq: LOCAL_UNIQ, signer: wallet, uniqBinding: pinnedElsewhere });
    // The vault's API says the same of the call, beside its uniq and signer.
    expect((await api.get(`${base}/approvals/${aside}`)).body.data.request).toMatchObject({ contract: payroll, contractName: 'Payroll vault', uniq: LOCAL_UNIQ, signer: wallet, uniqBinding: pinnedElsewhere });
    const own = await held('/sign', localSignBody(wallet));
    expect((await view(own)).call.uniqBinding).toEqual({ ...pinnedElsewhere, contractPin: LOCAL_UNIQ, warning: null });
    expect((await api.get(`${base}/approvals`)).body.data.page.find((a: { id: string }) => a.id === own).request.uniqBinding.warning).toBeNull();
  });

  it('on a governed vault the enrolment answers that it waits for the quorum, naming the proposal that lists it', async () => {
    const { vaultId } = await s.vaultWithKey('console-governed');
    await s.vault.governance.set(vaultId, { required: 1, approvers: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'], delay: '0s' }, 'operator');
    const alice = await enrol(vaultId, 'Alice');
    expect(alice.approver.enrolment).toEqual({ status: 'waiting-for-quorum', proposal: expect.any(String) });
    const proposal = await s.vault.governance.get(vaultId, alice.approver.enrolment.proposal);
    expect(proposal.diff.apiKeys).toEqual({ added: [alice.approver.id], removed: [], changed: [] });
    expect((await get('/session', alice.cookie)).body.approver.enrolment).toEqual(alice.approver.enrolment);
    // Shown in the console's proposals as any other.
    expect((await get('/proposals?state=pending', alice.cookie)).body.proposals.map((p: { id: string }) => p.id)).toEqual([proposal.id]);
  });

  it('GET /console serves the page with the CSP; /console redirects to /console/; unknown assets are 404', async () => {
    const page = await fetch(at('/console/'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const bare = await fetch(at('/console'), { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, 'console/']);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect((await fetch(at('/console/assets/..%2Fpackage.json'))).status).toBe(404);
    expect((await fetch(at('/console/assets/nothing.js'))).status).toBe(404);
  });
});

describe("approvers' console without VAULT_PUBLIC_URL", () => {
  let s: Target;
  beforeAll(async () => {
    const { BACKENDS } = await import('../support/backends.js');
    s = await BACKENDS.find((b) => b.database === 'sqlite' && b.shell === 'standalone')!.start();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('GET /console and the API answer 503 CONSOLE_UNAVAILABLE naming VAULT_PUBLIC_URL; no invite is made', async () => {
    const page = await fetch(`${s.url}/console/`);
    const body = (await page.json()) as { code: string; error: string };
    expect([page.status, body.code]).toEqual([503, 'CONSOLE_UNAVAILABLE']);
    expect(body.error).toMatch(/VAULT_PUBLIC_URL/);
    const { vaultId } = await s.vaultWithKey('no-console');
    await expect(s.vault.consoleInvites.invite(vaultId)).rejects.toMatchObject({ code: 'CONSOLE_UNAVAILABLE' });
  });
});
