import type { DomainError } from '../../domain/errors.js';
import type { ApiKeyRecord } from '../../domain/vault.js';
import type { GovernedApiKey, GovernedPasskey } from '../../domain/governance.js';
import type { ConsoleStore, Passkey } from '../../ports/console-store.port.js';
import { apiKeyActor, auditEvent } from '../audit/audit-actor.js';
import { approverOf, clientChallenge, ConsoleRoom, enrolmentProposal, sameText, sha256, shortId, signedOut, WELL_FORMED_SECRET, type Approver, type ConsoleCaller, type SignedIn } from './console-room.js';

/*
 * Console sessions: a passkey sign-in, the signed-in approver each request finds from its cookie, and the
 * sign-out. On a governed vault the key's roles, group and passkey are those its verified state lists.
 */

/** Idle and absolute lifetimes of a console session. */
export const SESSION_IDLE_MS = 15 * 60_000;
export const SESSION_ABSOLUTE_MS = 8 * 3_600_000;

/**
 * What a key of a governed vault is, as its verified state lists it: its entry (undefined: not listed,
 * e.g. its enrolment waits for the quorum) and the passkey the state pins for it.
 */
interface GovernedStanding {
  readonly entry: GovernedApiKey | undefined;
  readonly passkey: GovernedPasskey | undefined;
}

/** The row's passkey with the credential the signed state pins in its place: what sign-ins and votes verify against. */
const pinnedTo = (row: Passkey, pinned: GovernedPasskey | undefined): Passkey =>
  pinned === undefined ? row : { ...row, credentialId: pinned.credentialId, publicKey: pinned.publicKey };

export class ConsoleSessions extends ConsoleRoom {
  /** `POST /console/api/session/options`: a one-use sign-in challenge (discoverable credentials) for `client`. */
  async sessionOptions(client: string): Promise<{ options: unknown }> {
    const { store, rp } = this.parts();
    return { options: await rp.authenticationOptions(await this.handOut(store, 'session', null, client), []) };
  }

  /** `POST /console/api/session`: a passkey sign-in over a challenge of sessionOptions; a new session. */
  async signIn(response: unknown): Promise<SignedIn> {
    const { store, rp } = this.parts();
    const challenge = clientChallenge(response);
    const now = this.deps.clock.now();
    if (challenge === null || (await store.takeChallenge(challenge, 'session', now)) === undefined) {
      throw signedOut('the sign-in response is not over a challenge the vault gave (or it was used or expired)');
    }
    const credentialId = rp.assertionCredentialId(response);
    const passkey = credentialId === null ? null : await store.passkeyByCredential(credentialId);
    if (passkey === null) throw signedOut('this passkey is not enrolled here');
    const row = await this.liveKey(passkey.apiKeyId);
    const standing = await this.standing(row);
    const key = this.governedKey(row, standing);
    // On a governed vault the passkey its signed state lists, when it lists one: a row's replaced public key signs nobody in.
    const trusted = pinnedTo(passkey, standing?.passkey);
    const verified = await rp.verifyAssertion(response, challenge, trusted);
    if (verified === null) throw signedOut(`the passkey's response does not verify for ${rp.origin}`);
    await this.advance(store, passkey, verified.counter, signedOut('the authenticator counter went back (a cloned passkey?)'));
    return { approver: await this.approverWith(key, trusted, standing), sessionId: await this.start(store, key, trusted, 'sign-in') };
  }

  /** Null on a vault that is not governed; else what its verified state lists for this key. */
  private async standing(key: ApiKeyRecord): Promise<GovernedStanding | null> {
    const governed = await this.deps.governed(key.vaultId);
    if (governed === null) return null;
    const entry = governed.apiKeys?.find((k) => k.id === key.id);
    return { entry, passkey: entry?.passkey };
  }

  /** The key with the roles and group its signed state lists (a row widened by SQL gets nothing more); 401 when they hold no approver role. */
  private governedKey(row: ApiKeyRecord, standing: GovernedStanding | null): ApiKeyRecord {
    const entry = standing?.entry;
    if (entry === undefined) return row;
    if (!entry.roles.includes('approver')) throw signedOut('this key is no approver in the vault\'s signed state');
    const { group: _group, ...rest } = row;
    return { ...rest, roles: entry.roles, ...(entry.group === null ? {} : { group: entry.group }) };
  }

  /** The approver as shown, with its enrolment's standing on a governed vault (the pending proposal looked up only while it waits). */
  private async approverWith(key: ApiKeyRecord, passkey: Passkey, standing: GovernedStanding | null): Promise<Approver> {
    const vaultName = await this.vaultName(key.vaultId);
    if (standing === null) return approverOf(key, passkey, vaultName);
    if (standing.passkey !== undefined) return approverOf(key, passkey, vaultName, { status: 'in-force', proposal: null });
    return approverOf(key, passkey, vaultName, { status: 'waiting-for-quorum', proposal: enrolmentProposal(await this.deps.governance.list(key.vaultId), key.id, passkey.credentialId) });
  }

  /** The key, unrevoked and still an approver, or 401. */
  private async liveKey(apiKeyId: string): Promise<ApiKeyRecord> {
    const key = await this.deps.repository.findApiKey(apiKeyId);
    if (key === null || key.revoked !== null || !key.roles.includes('approver')) throw signedOut('this approver is revoked');
    return key;
  }

  /** Records the authenticator's counter: it must grow where the authenticator counts (0 and 0: it does not). */
  private async advance(store: ConsoleStore, passkey: Passkey, counter: number, refusal: DomainError): Promise<void> {
    if (counter === 0 && passkey.counter === 0) return;
    if (!(await store.advanceCounter(passkey.apiKeyId, counter))) throw refusal;
  }

  /**
   * The signed-in approver of a session id (the cookie's), or 401: unknown, ended, idle over 15 minutes,
   * older than 8 hours, its key revoked, or its passkey no longer the one it was signed in with.
   */
  async session(sessionId: string | undefined): Promise<ConsoleCaller> {
    const { store } = this.parts();
    if (sessionId === undefined || !WELL_FORMED_SECRET.test(sessionId)) throw signedOut('no session');
    const idHash = sha256(sessionId);
    const session = await store.findSession(idHash);
    if (session === null || !sameText(session.idHash, idHash)) throw signedOut('no session');
    const now = this.deps.clock.now().getTime();
    if (session.ended !== null) throw signedOut('this session has ended');
    if (now - session.created.getTime() >= SESSION_ABSOLUTE_MS) throw signedOut('this session is older than 8 hours');
    if (now - session.lastSeen.getTime() >= SESSION_IDLE_MS) throw signedOut('this session was idle over 15 minutes');
    // A key no longer an approver ends the session; a state that cannot be read now refuses this request only.
    const ended = async (error: unknown): Promise<never> => {
      await store.endSession(idHash, new Date(now));
      throw error;
    };
    const keyRow = await this.liveKey(session.apiKeyId).catch(ended);
    const standing = await this.standing(keyRow);
    let key: ApiKeyRecord;
    try {
      key = this.governedKey(keyRow, standing);
    } catch (error) {
      return ended(error);
    }
    const row = await store.passkeyOf(key.id);
    // On a governed vault the credential its signed state lists, when it lists one: what every vote must be an assertion of.
    const passkey = row === null ? null : pinnedTo(row, standing?.passkey);
    if (passkey === null || !sameText(passkey.credentialId, session.credentialId)) throw signedOut('this session\'s passkey is no longer this approver\'s');
    await store.touchSession(idHash, new Date(now));
    return {
      approver: await this.approverWith(key, passkey, standing),
      principal: { apiKeyId: key.id, vaultId: key.vaultId, roles: key.roles, group: key.group ?? null, approverAddress: null },
      passkey,
      sessionHash: idHash,
    };
  }

  /** `DELETE /console/api/session`: ended server side (audited); a session already ended is no error. */
  async endSession(caller: ConsoleCaller): Promise<void> {
    const { store } = this.parts();
    const now = this.deps.clock.now();
    await store.endSession(
      caller.sessionHash,
      now,
      auditEvent('approver.session-ended', now, apiKeyActor(caller.approver.id), caller.approver.vault, caller.approver.id, { session: shortId(caller.sessionHash), reason: 'signed out' }),
    );
  }
}
