import { randomBytes } from 'node:crypto';
import { invalidArgument } from '../../domain/errors.js';
import type { ApiKeyRecord } from '../../domain/vault.js';
import type { ConsoleStore, Passkey } from '../../ports/console-store.port.js';
import { governedApiKey, withEntry } from '../../domain/governance.js';
import { apiKeyActor, auditEvent } from '../audit/audit-actor.js';
import { approverOf, badSignature, clientChallenge, ConsoleRoom, sameText, secret, sha256, shortId, signedOut, WELL_FORMED_SECRET, type Enrolment, type SignedIn } from './console-room.js';

/*
 * Enrolment (`POST /console/api/enrol/options`, `POST /console/api/enrol`): an open invite's passkey
 * registered as a new approver key, signed in at once. On a governed vault the key counts once the quorum
 * signs the state that lists it with its passkey (the enrolment proposes it).
 */

export class ConsoleEnrolment extends ConsoleRoom {
  /** `POST /console/api/enrol/options`: the passkey creation options for an open invite, asked by `client`. */
  async enrolOptions(token: unknown, client: string): Promise<{ options: unknown; vault: string; group: string | null }> {
    const { store, rp } = this.parts();
    const invite = await this.openInvite(store, token);
    const challenge = await this.handOut(store, 'enrol', invite.tokenHash, client);
    const options = await rp.registrationOptions({ challenge, userId: shortId(invite.tokenHash), userName: `approver of ${invite.vaultId}` });
    return { options, vault: invite.vaultId, group: invite.group };
  }

  /**
   * `POST /console/api/enrol`: the invite used, an approver API key (role approver, the invite's vault and
   * group, no usable bearer secret) with the verified passkey, and a session. Audited (approver.enrolled).
   */
  async enrol(token: unknown, name: unknown, response: unknown): Promise<SignedIn> {
    const { store, rp } = this.parts();
    const invite = await this.openInvite(store, token);
    const label = typeof name === 'string' ? name.trim() : '';
    if (label.length < 1 || label.length > 200) throw invalidArgument('name: 1 to 200 characters (how other approvers and the audit trail name you)');
    const challenge = clientChallenge(response);
    const now = this.deps.clock.now();
    const taken = challenge === null ? undefined : await store.takeChallenge(challenge, 'enrol', now);
    if (taken === undefined || taken.subject === null || !sameText(taken.subject, invite.tokenHash)) {
      throw badSignature('enrolment: the passkey response is not over a challenge this invite was given (ask for new options)');
    }
    const credential = await rp.verifyRegistration(response, challenge!);
    if (credential === null) throw badSignature(`enrolment: the passkey response does not verify for ${rp.origin}`);
    if ((await store.passkeyByCredential(credential.credentialId)) !== null) throw invalidArgument('response: this passkey is enrolled already');
    // Asked before anything is written: a governed vault whose state does not verify (or lists no keys) enrols no one.
    const governed = await this.deps.governed(invite.vaultId);
    if (governed !== null && governed.apiKeys === null) throw invalidArgument(`vault: ${invite.vaultId}'s signed state does not list its API keys; a passkey approver cannot be listed there (docs/console.md)`);
    const id = randomBytes(8).toString('hex');
    // No usable bearer secret: the hash of bytes nobody keeps.
    const key: ApiKeyRecord = {
      id, vaultId: invite.vaultId, secretHash: sha256(secret()), created: now, revoked: null, roles: ['approver'], allowCidrs: null,
      ...(invite.group === null ? {} : { group: invite.group }),
    };
    const passkey: Passkey = { apiKeyId: id, vaultId: invite.vaultId, name: label, ...credential, created: now };
    const enrolled = auditEvent('approver.enrolled', now, apiKeyActor(id), invite.vaultId, id, {
      name: label, group: invite.group, credential: credential.credentialId.slice(0, 64), invite: shortId(invite.tokenHash),
    });
    if (!(await store.enrol(invite.tokenHash, now, key, passkey, enrolled))) throw signedOut('this invite was used or expired meanwhile');
    // A governed vault: the rows count for nothing until the quorum signs the state listing this key and passkey.
    const proposal =
      governed === null ? undefined : await this.deps.governance.proposeEntries(key.vaultId, 'apiKeys', (keys) => withEntry(keys, governedApiKey(key, credential)), apiKeyActor(id));
    const enrolment: Enrolment | undefined = governed === null ? undefined : { status: 'waiting-for-quorum', proposal: proposal?.id ?? null };
    return { approver: approverOf(key, passkey, await this.vaultName(key.vaultId), enrolment), sessionId: await this.start(store, key, passkey, 'enrolment') };
  }

  /** The invite of `token`, unused and unexpired, or 401 saying which. */
  private async openInvite(store: ConsoleStore, token: unknown) {
    if (typeof token !== 'string' || !WELL_FORMED_SECRET.test(token)) throw invalidArgument('token: the enrolment token of the invite URL (43 base64url characters)');
    const invite = await store.findInvite(sha256(token));
    const now = this.deps.clock.now();
    if (invite === null) throw signedOut('this invite is not known');
    if (invite.used !== null) throw signedOut('this invite was used already; ask for a new one');
    if (invite.expires.getTime() <= now.getTime()) throw signedOut('this invite expired; ask for a new one');
    return invite;
  }
}
