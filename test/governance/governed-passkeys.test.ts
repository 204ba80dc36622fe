import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, type Vault } from '../../lib/index.js';
import type { Approval } from '../../src/domain/approval.js';
import { decisionTypedData } from '../../src/domain/signed-decisions.js';
import type { Principal } from '../../src/application/access/principal.js';
import { decisionChallenge } from '../../src/application/approvals/passkey-votes.js';
import { PolicyCache } from '../../src/application/signing/policy-cache.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { SoftwareAuthenticator } from '../support/software-authenticator.js';
import { until } from '../support/webhook-receiver.js';
import { ethersApprover, openStore, type Approver, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];
const PUBLIC_URL = 'https://vault.example';
const RP = { origin: PUBLIC_URL, rpId: 'vault.example' } as const;
/** The client the console's challenges are handed to (what the HTTP layer names from the request). */
const CLIENT = '127.0.0.1';

/*
 * Passkey approvers on a governed vault (docs/console.md, "Governed vaults"): enrolment writes the rows and
 * proposes the key, with its passkey, to the signed state; its votes count once the quorum has signed that.
 * Every passkey vote is verified against the public key the state pins, when cast and at release, so a
 * database writer who replaces a passkey's public key, or adds a passkey row to a key, gets no counted vote.
 */
describe.each(DIALECTS)('passkey approvers on a governed vault on %s', (dialect) => {
  let store: Store;
  let vault: Vault;
  const approvers: Approver[] = [ethersApprover(), ethersApprover(), ethersApprover()];
  let vaultId: string;
  let wallet: string;
  let requester: Principal;
  /** An approver key whose address credential the state lists: the second of each quorum of two. */
  let addressVoter: Principal;

  // Every held message needs two approvals: one passkey and one address vote make it.
  const HOLD = { version: 2, rules: [{ id: 'two-eyes', effect: { hold: { required: 2 } }, kinds: ['message'] }], limits: [] };

  const inForce = async (proposal: string) => {
    for (const who of approvers.slice(0, 2)) {
      const view = await vault.governance.get(vaultId, proposal);
      await vault.governance.vote(vaultId, proposal, 'approve', await who.sign(view.typedData), 'operator');
    }
    expect((await vault.governance.get(vaultId, proposal)).status).toBe('applied');
  };
  /** Invited and enrolled through the console, as the page does it with the approver's authenticator. */
  const enrol = async (name: string, on = vaultId) => {
    const { url } = await vault.consoleInvites.invite(on);
    const token = url.slice(url.indexOf('#enrol=') + '#enrol='.length);
    const { options } = await vault.consoleEnrolment.enrolOptions(token, CLIENT);
    const authenticator = new SoftwareAuthenticator();
    const { approver, sessionId } = await vault.consoleEnrolment.enrol(token, name, authenticator.register(options as { challenge: string }, RP));
    return { approver, sessionId, authenticator };
  };
  const held = async (message: string): Promise<Approval> => {
    const outcome = await vault.signMessage.execute({ principal: requester, address: wallet, message });
    if (!('approval' in outcome)) throw new Error('expected the message to be held');
    return outcome.approval as Approval;
  };
  /** A passkey vote through the console: the session's challenge (the Decision digest) asserted by `by`. */
  const passkeyVote = async (sessionId: string, approval: Approval, by: SoftwareAuthenticator) => {
    const caller = await vault.consoleSessions.session(sessionId);
    const { options } = await vault.consoleVotes.decisionOptions(caller, approval.id, 'approve');
    return vault.consoleVotes.vote(caller, approval.id, 'approve', by.assert((options as { challenge: string }).challenge, RP));
  };
  const addressVote = async (approval: Approval) => {
    const t = decisionTypedData(vaultId, approval.id, approval.requestHash, 'approve');
    return vault.voteOnApproval.execute({ principal: addressVoter, id: approval.id, vote: 'approve', signature: await approvers[2]!.sign(t as never) });
  };
  /** The database writer's vote row: `by`'s assertion over the approval's Decision, for key `apiKeyId`. */
  const insertVote = async (approval: Approval, apiKeyId: string, by: SoftwareAuthenticator) => {
    const assertion = by.assert(decisionChallenge(vault.container.get(TOKENS.STANDARD_PAYLOADS), approval, 'approve'), RP);
    await store.sql('INSERT INTO approval_votes (approval_id, api_key_id, vote, at, signature) VALUES ($1, $2, $3, $4, $5)', [
      approval.id, apiKeyId, 'approve', dialect === 'postgres' ? new Date() : Date.now(), JSON.stringify(assertion),
    ]);
  };
  const invalidVotes = async (approval: Approval) =>
    (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'approval.vote-invalid' && r.subject === approval.id).map((r) => r.details);
  const statusOf = async (approval: Approval) => (await vault.getApproval.execute(vaultId, approval.id)).status;
  const refusal = (p: Promise<unknown>) => p.then(() => 'counted', (e: { code: string }) => e.code);

  beforeAll(async () => {
    store = await openStore(dialect);
    vault = await store.open({ publicUrl: PUBLIC_URL });
    ({ id: vaultId } = await vault.manageVaults.create({ name: 'governed passkeys' }));
    await vault.managePolicies.apply(vaultId, HOLD);
    const { record } = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    requester = { apiKeyId: record.id, vaultId, roles: record.roles };
    wallet = (await vault.createWallet.execute({ principal: requester, name: 'w' })).address;
    const voter = await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'], approverAddress: approvers[2]!.address });
    addressVoter = { apiKeyId: voter.record.id, vaultId, roles: voter.record.roles, approverAddress: approvers[2]!.address };
    const set = await vault.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address) }, 'operator');
    expect('genesis' in set).toBe(true);
  });
  afterAll(async () => {
    await store?.close();
  });

  it("enrolment proposes the key with its passkey; its vote counts for nothing until the quorum signs it, then counts", async () => {
    const alice = await enrol('Alice');
    expect(alice.approver.enrolment).toEqual({ status: 'waiting-for-quorum', proposal: expect.any(String) });
    const proposal = alice.approver.enrolment!.proposal!;
    const view = await vault.governance.get(vaultId, proposal);
    expect(view.diff.apiKeys).toEqual({ added: [alice.approver.id], removed: [], changed: [] });
    // With the hash of the key's unusable bearer secret: a hash a database writer puts in the row opens nothing.
    const { secretHash } = (await vault.manageVaults.listApiKeys(vaultId)).find((k) => k.id === alice.approver.id)!;
    expect(view.state.apiKeys!.find((k) => k.id === alice.approver.id)).toEqual({
      id: alice.approver.id, roles: ['approver'], group: null, approverAddress: null, secretHash,
      passkey: { credentialId: alice.authenticator.id, publicKey: alice.authenticator.publicKey },
    });
    // The waiting approver's session says so, naming the proposal; so does `approvers list`.
    expect((await vault.consoleSessions.session(alice.sessionId)).approver.enrolment).toEqual({ status: 'waiting-for-quorum', proposal });
    const listed = async () => (await vault.consoleInvites.list(vaultId)).find((r) => r.id === alice.approver.id)!.enrolment;
    expect(await listed()).toEqual({ status: 'waiting-for-quorum', proposal });

    const early = await held('pay 1');
    expect(await refusal(passkeyVote(alice.sessionId, early, alice.authenticator))).toBe('APPROVAL_SIGNATURE_INVALID');
    expect((await vault.getApproval.execute(vaultId, early.id)).votes).toEqual([]);
    // One signature of two is no quorum: still nothing.
    const t = view.typedData;
    await vault.governance.vote(vaultId, proposal, 'approve', await approvers[0]!.sign(t), 'operator');
    expect(await refusal(passkeyVote(alice.sessionId, early, alice.authenticator))).toBe('APPROVAL_SIGNATURE_INVALID');
    // A vote row the writer puts in meanwhile (alice's own valid assertion) counts for nothing at release either.
    await insertVote(early, alice.approver.id, alice.authenticator);
    expect((await addressVote(early)).status).toBe('pending');
    expect(await invalidVotes(early)).toEqual([expect.objectContaining({ votes: `api-key:${alice.approver.id}`, valid: 1, released: false })]);

    await vault.governance.vote(vaultId, proposal, 'approve', await approvers[1]!.sign(t), 'operator');
    expect((await vault.governance.get(vaultId, proposal)).status).toBe('applied');
    expect((await vault.consoleSessions.session(alice.sessionId)).approver.enrolment).toEqual({ status: 'in-force', proposal: null });
    expect(await listed()).toEqual({ status: 'in-force', proposal: null });
    const later = await held('pay 2');
    expect((await passkeyVote(alice.sessionId, later, alice.authenticator)).approvals).toBe(1);
    expect((await addressVote(later)).status).toBe('approved');
    expect(await invalidVotes(later)).toEqual([]);
  });

  it("a passkey public key replaced by SQL: the writer's assertions count for nothing, the enrolled passkey's still count", async () => {
    const bob = await enrol('Bob');
    await inForce(bob.approver.enrolment!.proposal!);
    // The writer's own key under bob's credential id, in bob's row.
    const forger = new SoftwareAuthenticator(true, bob.authenticator.credentialId);
    await store.sql('UPDATE approver_passkeys SET public_key = $1, counter = 0 WHERE api_key_id = $2', [forger.publicKey, bob.approver.id]);
    const [row] = (await store.sql('SELECT public_key FROM approver_passkeys WHERE api_key_id = $1', [bob.approver.id])) as { public_key: string }[];
    expect(row!.public_key).toBe(forger.publicKey);
    // `approvers list` shows the row no longer matches what the state lists.
    expect((await vault.consoleInvites.list(vaultId)).find((r) => r.id === bob.approver.id)!.enrolment).toEqual({ status: 'waiting-for-quorum', proposal: null });

    // Sign-in is verified against the state's key: the forger gets no session.
    const { options } = await vault.consoleSessions.sessionOptions(CLIENT);
    expect(await refusal(vault.consoleSessions.signIn(forger.assert((options as { challenge: string }).challenge, RP)))).toBe('UNAUTHENTICATED');
    // A vote cast with the forger's assertion (as any caller of the use case would) is refused, nothing written.
    const approval = await held('pay 3');
    const principal: Principal = { apiKeyId: bob.approver.id, vaultId, roles: ['approver'], approverAddress: null };
    const forged = JSON.stringify(forger.assert(decisionChallenge(vault.container.get(TOKENS.STANDARD_PAYLOADS), approval, 'approve'), RP));
    expect(await refusal(vault.voteOnApproval.execute({ principal, id: approval.id, vote: 'approve', passkeyAssertion: forged }))).toBe('APPROVAL_SIGNATURE_INVALID');
    expect((await vault.getApproval.execute(vaultId, approval.id)).votes).toEqual([]);
    // Put in by SQL: counted by the store, nothing at release.
    await insertVote(approval, bob.approver.id, forger);
    expect((await addressVote(approval)).status).toBe('pending');
    expect(await invalidVotes(approval)).toEqual([expect.objectContaining({ votes: `api-key:${bob.approver.id}`, released: false })]);

    // Bob's own authenticator still signs in and votes: the state's public key is the one it is verified with.
    const again = await vault.consoleSessions.sessionOptions(CLIENT);
    const signedIn = await vault.consoleSessions.signIn(bob.authenticator.assert((again.options as { challenge: string }).challenge, RP));
    const next = await held('pay 4');
    await passkeyVote(signedIn.sessionId, next, bob.authenticator);
    expect((await addressVote(next)).status).toBe('approved');
  });

  it('a passkey row inserted by SQL for a key the state lists without one counts for nothing', async () => {
    // An approver key the quorum listed with no credential; the writer gives it a passkey row of its own.
    const plain = await vault.manageVaults.createApiKey(vaultId, { roles: ['approver'] });
    await inForce(plain.proposal!.id);
    const forger = new SoftwareAuthenticator();
    await store.sql(
      'INSERT INTO approver_passkeys (api_key_id, vault_id, name, credential_id, public_key, counter, transports, created) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [plain.record.id, vaultId, 'Mallory', forger.id, forger.publicKey, 0, null, dialect === 'postgres' ? new Date() : Date.now()],
    );
    // The row signs the writer in (the state pins no passkey for the key), but its votes count for nothing.
    const { options } = await vault.consoleSessions.sessionOptions(CLIENT);
    const session = await vault.consoleSessions.signIn(forger.assert((options as { challenge: string }).challenge, RP));
    expect(session.approver.enrolment).toEqual({ status: 'waiting-for-quorum', proposal: null });
    const approval = await held('pay 5');
    expect(await refusal(passkeyVote(session.sessionId, approval, forger))).toBe('APPROVAL_SIGNATURE_INVALID');
    await insertVote(approval, plain.record.id, forger);
    expect((await addressVote(approval)).status).toBe('pending');
    expect(await invalidVotes(approval)).toEqual([expect.objectContaining({ votes: `api-key:${plain.record.id}`, released: false })]);
    const refused = (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'auth.refused' && r.details.approval === approval.id);
    expect(refused.map((r) => r.details.reason)).toContain('governed vault: key without a credential in its signed state');
  });

  it('revoking a passkey approver is at once, and proposes its removal; an un-revoked row gets no vote once that is in force', async () => {
    const carol = await enrol('Carol');
    await inForce(carol.approver.enrolment!.proposal!);
    const { proposal } = await vault.manageVaults.revokeApiKey(carol.approver.id);
    expect((await vault.governance.get(vaultId, proposal!.id)).diff.apiKeys).toEqual({ added: [], removed: [carol.approver.id], changed: [] });
    expect(await refusal(vault.consoleSessions.session(carol.sessionId))).toBe('UNAUTHENTICATED');
    await inForce(proposal!.id);
    expect((await vault.governance.show(vaultId)).state!.apiKeys!.some((k) => k.id === carol.approver.id)).toBe(false);
    // The writer un-revokes the row: carol signs in again, but the state lists her no more.
    await store.sql('UPDATE api_keys SET revoked = NULL WHERE id = $1', [carol.approver.id]);
    // Signed in again once this process reads the row again (PostgreSQL's key cache: when the trigger's NOTIFY arrives).
    let back: { sessionId: string } | undefined;
    await until(async () => {
      const { options } = await vault.consoleSessions.sessionOptions(CLIENT);
      back = await vault.consoleSessions.signIn(carol.authenticator.assert((options as { challenge: string }).challenge, RP)).catch(() => undefined);
      return back !== undefined;
    }, 'the un-revoked row signs carol in');
    const approval = await held('pay 6');
    expect(await refusal(passkeyVote(back!.sessionId, approval, carol.authenticator))).toBe('APPROVAL_SIGNATURE_INVALID');
  });

  it('approvers enrolled before the vault was governed are in its genesis with their passkeys, and vote at once', async () => {
    const { id: other } = await vault.manageVaults.create({ name: 'enrolled first' });
    await vault.managePolicies.apply(other, HOLD);
    const dave = await enrol('Dave', other);
    expect(dave.approver.enrolment).toBeUndefined();
    const set = await vault.governance.set(other, { required: 2, approvers: approvers.map((a) => a.address) }, 'operator');
    if (!('genesis' in set)) throw new Error('expected a genesis');
    expect(set.genesis.state.apiKeys!.find((k) => k.id === dave.approver.id)!.passkey).toEqual({ credentialId: dave.authenticator.id, publicKey: dave.authenticator.publicKey });
    expect((await vault.consoleSessions.session(dave.sessionId)).approver.enrolment).toEqual({ status: 'in-force', proposal: null });
  });

  it('invite refuses a governed vault whose state does not list its keys, naming governance set', async () => {
    const { id: other } = await vault.manageVaults.create({ name: 'keys not governed' });
    const set = await vault.governance.set(other, { required: 1, approvers: [approvers[0]!.address] }, 'operator');
    if (!('genesis' in set)) throw new Error('expected a genesis');
    // The genesis as an earlier release wrote it: no apiKeys.
    const { canonicalStateJson, stateHash } = await import('../../src/domain/governance.js');
    const { apiKeys: _keys, ...earlier } = set.genesis.state;
    const text = canonicalStateJson(earlier);
    await store.sql('UPDATE vault_governance SET genesis_state = $1, genesis_hash = $2, head_hash = $2 WHERE vault_id = $3', [text, stateHash(text), other]);
    vault.container.get(PolicyCache).invalidate(other);
    await expect(vault.consoleInvites.invite(other)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/does not list its API keys.*governance set/) });
  });
});
