import type { ApiKeyRecord } from '../domain/vault.js';
import type { AuditEvent, AuditRecord } from './audit-log.port.js';

/*
 * The approvers' console (docs/console.md): passkeys of enrolled approvers, one-time enrolment
 * invites, console sessions and sign-in challenges. What a browser holds (an invite token, a session id)
 * is stored only as its sha256 hash.
 */

/** An enrolled approver's WebAuthn credential; its API key (same id) holds the vault, the role and the group. */
export interface Passkey {
  readonly apiKeyId: string;
  readonly vaultId: string;
  /** The name the approver gave at enrolment (1 to 200 characters). */
  readonly name: string;
  /** The credential id, base64url. */
  readonly credentialId: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  /** The authenticator's signature counter as last seen (0: an authenticator that does not count). */
  readonly counter: number;
  readonly transports: readonly string[];
  readonly created: Date;
}

export interface ConsoleInvite {
  readonly tokenHash: string;
  readonly vaultId: string;
  readonly group: string | null;
  readonly created: Date;
  readonly expires: Date;
  /** When it was used (enrolled); null: not yet. */
  readonly used: Date | null;
  /** The API key its enrolment made. */
  readonly apiKeyId: string | null;
}

export interface ConsoleSession {
  readonly idHash: string;
  readonly apiKeyId: string;
  /** The credential it was signed in with: the session is bound to it. */
  readonly credentialId: string;
  readonly created: Date;
  readonly lastSeen: Date;
  readonly ended: Date | null;
}

export type ChallengePurpose = 'session' | 'enrol';

/** A challenge handed out: one use, until `expires`. */
export interface IssuedChallenge {
  readonly challenge: string;
  readonly purpose: ChallengePurpose;
  /** What it is for (an enrolment's invite hash); null for a sign-in. */
  readonly subject: string | null;
  /** Who asked: the client it counts against (an address, an IPv6 client's network). */
  readonly client: string;
  readonly expires: Date;
}

/** The challenges outstanding when one more is asked for: everyone's, and the asking client's. */
export interface OutstandingChallenges {
  readonly all: number;
  /** When the first of everyone's expires; null when there are none. */
  readonly allFirstExpires: Date | null;
  readonly client: number;
  /** When the first of the client's expires; null when it holds none. */
  readonly clientFirstExpires: Date | null;
}

export interface ConsoleStore {
  /** Stores an invite with its approver.invited record, in one transaction. */
  addInvite(invite: ConsoleInvite, invited: AuditEvent): Promise<void>;
  findInvite(tokenHash: string): Promise<ConsoleInvite | null>;
  /**
   * Uses the invite (only while unused and unexpired at `now`), inserts the approver's API key and its
   * passkey and `enrolled`, in one transaction; false (nothing written) when the invite was used or
   * expired meanwhile.
   */
  enrol(tokenHash: string, now: Date, key: ApiKeyRecord, passkey: Passkey, enrolled: AuditEvent): Promise<boolean>;
  passkeyByCredential(credentialId: string): Promise<Passkey | null>;
  passkeyOf(apiKeyId: string): Promise<Passkey | null>;
  /** The passkeys of a vault's approvers, oldest first. */
  passkeys(vaultId: string): Promise<Passkey[]>;
  /** Records the authenticator's new counter; false when it is not above the stored one (a cloned authenticator), unless both are 0. */
  advanceCounter(apiKeyId: string, counter: number): Promise<boolean>;
  /**
   * Stores a challenge handed out, first dropping those expired at `now`, unless `refusal` of what is then
   * outstanding (counted in the same transaction) is not null; answers what `refusal` answered.
   */
  addChallenge<R>(challenge: IssuedChallenge, now: Date, refusal: (outstanding: OutstandingChallenges) => R | null): Promise<R | null>;
  /** The challenges `client` holds unexpired at `now`, and when the first of them expires (one read, no lock). */
  challengesOf(client: string, now: Date): Promise<{ readonly count: number; readonly firstExpires: Date | null }>;
  /** Takes a challenge (deleted: one use); its subject, or undefined when unknown, of another purpose or expired at `now`. */
  takeChallenge(challenge: string, purpose: ChallengePurpose, now: Date): Promise<{ subject: string | null } | undefined>;
  startSession(session: ConsoleSession, started: AuditEvent): Promise<void>;
  findSession(idHash: string): Promise<ConsoleSession | null>;
  touchSession(idHash: string, now: Date): Promise<void>;
  /** Ends a session with `ended` (when given) in one transaction; false when it had ended already. */
  endSession(idHash: string, now: Date, ended?: AuditEvent): Promise<boolean>;
  /** The vault's audit records about `subject` (an approval, a proposal), oldest first, at most `limit`. */
  auditOf(vaultId: string, subject: string, limit: number): Promise<AuditRecord[]>;
}
