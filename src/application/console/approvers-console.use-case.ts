import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseApproverGroup } from '../../domain/approval-rules.js';
import { heldRequestOf, type Approval, type ApprovalStatus, type ApprovalVoteKind } from '../../domain/approval.js';
import { TYPED_DATA_KIND } from '../../domain/signing/kinds/typed-data/typed-data.kind.js';
import { DomainError, ErrorCode, invalidArgument } from '../../domain/errors.js';
import { decisionTypedData, type DecisionKind } from '../../domain/signed-decisions.js';
import { parseWindow } from '../../domain/sign-limits.js';
import type { ApiKeyRecord } from '../../domain/vault.js';
import { withoutTrailingSlashes } from '../../domain/url-path.js';
import type { ApiKeyStore } from '../../ports/api-key-store.port.js';
import type { AuditLog, AuditRecord } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { ChallengePurpose, ConsoleSession, ConsoleStore, Passkey } from '../../ports/console-store.port.js';
import type { RelyingParty } from '../../ports/relying-party.port.js';
import type { StandardPayloads } from '../../ports/standard-payloads.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { approvalView, typedDataFieldPage, type ApprovalView, type ApprovalViewContext, type TypedDataFieldPage } from '../approvals/approval-view.js';
import { keyLabelsOf, type GetApproval, type ListApprovals, type VoteOnApproval } from '../approvals/approvals.use-case.js';
import { governedApiKey, withEntry, type GovernedApiKey, type GovernedPasskey } from '../../domain/governance.js';
import { apiKeyActor, auditEvent, OPERATOR } from '../audit/audit-actor.js';
import type { EntriesProposer, Governance, ProposalView } from '../governance/governance.use-case.js';
import type { PolicyCache } from '../signing/policy-cache.js';
import type { Principal } from '../access/principal.js';
import { challengeRefusal, clientRefusal, DEFAULT_CHALLENGE_BOUNDS, type ChallengeBounds } from './sign-in-challenges.js';
import type { PasskeyVoteCheck } from '../approvals/signed-votes.js';
import { requireVault } from '../wallets/wallet-lookup.js';

/*
 * The approvers' console (issue 36, docs/console.md): invites, passkey enrolment, console sessions, and
 * approvals seen decoded and decided with a passkey. An enrolled approver is an API key (role approver,
 * the invite's vault and group) with no usable bearer secret and a passkey; its votes are WebAuthn
 * assertions over the EIP-712 Decision digest, verified when cast and again at release (PasskeyVotes).
 */

/** Idle and absolute lifetimes of a console session. */
export const SESSION_IDLE_MS = 15 * 60_000;
export const SESSION_ABSOLUTE_MS = 8 * 3_600_000;
/** A sign-in challenge is good for one use within this long. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
export const DEFAULT_INVITE_MS = 24 * 3_600_000;
export const MAX_INVITE_MS = 30 * 24 * 3_600_000;
/** Approvals a console list shows at most (newest first). */
const LIST_MAX = 100;
/** The invite's bytes: what the URL fragment carries (base64url). */
const SECRET_BYTES = 32;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const secret = (): string => randomBytes(SECRET_BYTES).toString('base64url');
/** A short public id of a hashed secret, for the audit trail (never the secret, never the whole hash). */
const shortId = (hash: string): string => hash.slice(0, 16);
const WELL_FORMED_SECRET = /^[A-Za-z0-9_-]{43}$/;

export interface Approver {
  readonly id: string;
  readonly name: string;
  readonly vault: string;
  /** The vault's name, for people (the id is what the API takes). */
  readonly vaultName: string;
  readonly group: string | null;
  readonly created: string;
  /**
   * On a governed vault (docs/console.md, "Governed vaults"): `in-force` once the vault's signed state lists
   * this key with this passkey (its votes count), else `waiting-for-quorum` with the pending proposal that
   * adds it (null: none pending, e.g. it was rejected). Absent on a vault that is not governed.
   */
  readonly enrolment?: Enrolment;
}

export interface Enrolment {
  readonly status: 'in-force' | 'waiting-for-quorum';
  readonly proposal: string | null;
}

/** A signed-in approver, as each console request finds it. */
export interface ConsoleCaller {
  readonly approver: Approver;
  readonly principal: Principal;
  readonly passkey: Passkey;
  readonly sessionHash: string;
}

export interface ApproversConsoleDeps {
  /** Absent: this persistence holds no console tables (CONSOLE_UNAVAILABLE). */
  readonly store: ConsoleStore | undefined;
  /** Absent: no VAULT_PUBLIC_URL (CONSOLE_UNAVAILABLE). */
  readonly relyingParty: RelyingParty | undefined;
  /** VAULT_PUBLIC_URL, for the invite URL. */
  readonly publicUrl: string | undefined;
  readonly repository: VaultStore & Pick<ApiKeyStore, 'findApiKey' | 'listApiKeys'> & Pick<WalletStore, 'findWallet'>;
  readonly clock: Clock;
  readonly auditLog: AuditLog;
  readonly payloads: Pick<StandardPayloads, 'typedDataDigest' | 'unsignedTransaction' | 'decodeArguments'>;
  readonly policies: Pick<PolicyCache, 'state'>;
  readonly chainIds: Readonly<Record<string, string>>;
  /**
   * Null when the vault is not governed; else the API keys its verified state lists (null: a state that does
   * not govern keys, where passkey approvers cannot be listed, so none are invited).
   */
  readonly governed: (vaultId: string) => Promise<{ readonly apiKeys: readonly GovernedApiKey[] | null } | null>;
  readonly listApprovals: Pick<ListApprovals, 'execute'>;
  readonly getApproval: Pick<GetApproval, 'execute'>;
  readonly voteOnApproval: Pick<VoteOnApproval, 'execute'>;
  /** Proposals: read for the console, and made on a governed vault's enrolment (the key listed with its passkey). */
  readonly governance: Pick<Governance, 'list' | 'get'> & Pick<EntriesProposer, 'proposeEntries'>;
  /** How many challenges may be outstanding, per client and in all; default DEFAULT_CHALLENGE_BOUNDS. */
  readonly challengeBounds?: ChallengeBounds;
}

/** A new console session: the approver, and the session id the cookie carries (never stored as it is). */
export interface SignedIn {
  readonly approver: Approver;
  readonly sessionId: string;
}

const unavailable = (why: string) => new DomainError(ErrorCode.CONSOLE_UNAVAILABLE, `the approvers' console is not enabled: ${why} (docs/console.md)`);
const signedOut = (why: string) => new DomainError(ErrorCode.UNAUTHENTICATED, `console: ${why}; sign in with your passkey`);
const badSignature = (why: string) => new DomainError(ErrorCode.APPROVAL_SIGNATURE_INVALID, why);

function approverOf(key: ApiKeyRecord, passkey: Passkey, vaultName: string, enrolment?: Enrolment): Approver {
  return {
    id: key.id, name: passkey.name, vault: key.vaultId, vaultName, group: key.group ?? null, created: passkey.created.toISOString(),
    ...(enrolment === undefined ? {} : { enrolment }),
  };
}

/**
 * What a key of a governed vault is, as its verified state lists it: its entry (undefined: not listed,
 * e.g. its enrolment waits for the quorum) and the passkey the state pins for it.
 */
interface GovernedStanding {
  readonly entry: GovernedApiKey | undefined;
  readonly passkey: GovernedPasskey | undefined;
}

/** The pending proposal (of `pending`) that lists key `apiKeyId` with passkey `credentialId`: its enrolment's. */
const enrolmentProposal = (pending: readonly ProposalView[], apiKeyId: string, credentialId: string): string | null =>
  pending.find((p) => p.status === 'pending' && p.state.apiKeys?.some((k) => k.id === apiKeyId && k.passkey?.credentialId === credentialId))?.id ?? null;

/** The row's passkey with the credential the signed state pins in its place: what sign-ins and votes verify against. */
const pinnedTo = (row: Passkey, pinned: GovernedPasskey | undefined): Passkey =>
  pinned === undefined ? row : { ...row, credentialId: pinned.credentialId, publicKey: pinned.publicKey };

/** The base64url challenge a passkey signs to decide `decision` on `approval`: its EIP-712 Decision digest. */
export function decisionChallenge(payloads: Pick<StandardPayloads, 'typedDataDigest'>, approval: Pick<Approval, 'vaultId' | 'id' | 'requestHash'>, decision: DecisionKind): string {
  return Buffer.from(payloads.typedDataDigest(decisionTypedData(approval.vaultId, approval.id, approval.requestHash, decision)).digest).toString('base64url');
}

/**
 * Passkey votes verified again at release from the stored rows (VoteOnApproval's PasskeyVoteCheck): the
 * stored assertion must be the key's passkey's, over this approval's Decision digest, at the console's
 * origin. A key with a passkey and no relying party configured votes for nothing.
 */
export class PasskeyVotes implements PasskeyVoteCheck {
  constructor(
    private readonly store: ConsoleStore | undefined,
    private readonly relyingParty: RelyingParty | undefined,
    private readonly payloads: Pick<StandardPayloads, 'typedDataDigest'>,
  ) {}

  async verify(approval: Approval, apiKeyId: string, decision: DecisionKind, signature: string | null, pinned?: GovernedPasskey): Promise<boolean | null> {
    // Pinned by a governed vault's signed state: that credential and public key alone, whatever the row says.
    const passkey: Passkey | null =
      pinned !== undefined
        ? { apiKeyId, vaultId: approval.vaultId, name: '', credentialId: pinned.credentialId, publicKey: pinned.publicKey, counter: 0, transports: [], created: new Date(0) }
        : this.store === undefined
          ? null
          : await this.store.passkeyOf(apiKeyId);
    if (passkey === null) return null;
    if (this.relyingParty === undefined || typeof signature !== 'string' || signature.length > 16_384) return false;
    let response: unknown;
    try {
      response = JSON.parse(signature);
    } catch {
      return false;
    }
    let challenge: string;
    try {
      challenge = decisionChallenge(this.payloads, approval, decision);
    } catch {
      return false;
    }
    return (await this.relyingParty.verifyAssertion(response, challenge, passkey)) !== null;
  }
}

export class ApproversConsole {
  constructor(private readonly deps: ApproversConsoleDeps) {}

  /** VAULT_PUBLIC_URL, or undefined when the console is not enabled. */
  publicUrl(): string | undefined {
    return this.deps.publicUrl;
  }

  private parts(): { store: ConsoleStore; rp: RelyingParty } {
    if (this.deps.relyingParty === undefined) throw unavailable('VAULT_PUBLIC_URL is not set');
    if (this.deps.store === undefined) throw unavailable('this persistence holds no console tables');
    return { store: this.deps.store, rp: this.deps.relyingParty };
  }

  /**
   * `wallet-vault approvers invite`: a one-time enrolment URL for the vault (and group), good until
   * `expiresMs` from now. Only its hash is stored; audited (approver.invited).
   */
  async invite(vaultId: string, options: { group?: string; expiresMs?: number; expires?: string } = {}): Promise<{ url: string; expires: Date; governed: boolean }> {
    const { store } = this.parts();
    await requireVault(this.deps.repository, vaultId);
    const governed = await this.deps.governed(vaultId);
    if (governed?.apiKeys === null) {
      throw invalidArgument(
        `vault: ${vaultId} is governed by a state that does not list its API keys, so a passkey approver could not be listed there; run governance set to propose that it does (docs/console.md)`,
      );
    }
    const group = options.group === undefined ? null : parseApproverGroup(options.group);
    const ms = options.expires !== undefined ? windowOf(options.expires) : (options.expiresMs ?? DEFAULT_INVITE_MS);
    if (!Number.isSafeInteger(ms) || ms < 60_000 || ms > MAX_INVITE_MS) throw invalidArgument('expires: from 1m to 30d');
    const token = secret();
    const tokenHash = sha256(token);
    const now = this.deps.clock.now();
    const expires = new Date(now.getTime() + ms);
    await store.addInvite(
      { tokenHash, vaultId, group, created: now, expires, used: null, apiKeyId: null },
      auditEvent('approver.invited', now, OPERATOR, vaultId, shortId(tokenHash), { group, expires: expires.toISOString() }),
    );
    return { url: `${withoutTrailingSlashes(this.deps.publicUrl!)}/console/#enrol=${token}`, expires, governed: governed !== null };
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

  /**
   * `wallet-vault approvers list`: the vault's enrolled approvers, revoked ones included; on a governed vault
   * each with its enrolment's standing (in force when the signed state lists this key with this passkey).
   */
  async list(vaultId: string): Promise<(Approver & { revoked: string | null; credential: string })[]> {
    const { store } = this.parts();
    const vault = await requireVault(this.deps.repository, vaultId);
    const keys = new Map((await this.deps.repository.listApiKeys(vaultId)).map((k) => [k.id, k]));
    const governed = await this.deps.governed(vaultId);
    const listed = new Map(governed?.apiKeys?.map((k) => [k.id, k]));
    const pending = governed === null ? [] : await this.deps.governance.list(vaultId);
    const enrolmentOf = (p: Passkey): Enrolment | undefined => {
      if (governed === null) return undefined;
      const pinned = listed.get(p.apiKeyId)?.passkey;
      if (pinned !== undefined && pinned.credentialId === p.credentialId && pinned.publicKey === p.publicKey) return { status: 'in-force', proposal: null };
      return { status: 'waiting-for-quorum', proposal: enrolmentProposal(pending, p.apiKeyId, p.credentialId) };
    };
    return (await store.passkeys(vaultId)).flatMap((p) => {
      const key = keys.get(p.apiKeyId);
      return key === undefined ? [] : [{ ...approverOf(key, p, vault.name, enrolmentOf(p)), revoked: key.revoked?.toISOString() ?? null, credential: p.credentialId }];
    });
  }

  /**
   * A fresh challenge stored for `client` (who asked: an address, an IPv6 client's network), or the 429 of
   * the bound it would go past (sign-in-challenges.ts). A client at its own bound is refused on one read:
   * a flood from one address never waits for (nor holds up) the count of everyone's.
   */
  private async handOut(store: ConsoleStore, purpose: ChallengePurpose, subject: string | null, client: string): Promise<string> {
    const now = this.deps.clock.now();
    const challenge = secret();
    const bounds = this.deps.challengeBounds ?? DEFAULT_CHALLENGE_BOUNDS;
    const held = await store.challengesOf(client, now);
    const over = clientRefusal(held.count, held.firstExpires, bounds, now);
    if (over !== null) throw over;
    const refused = await store.addChallenge({ challenge, purpose, subject, client, expires: new Date(now.getTime() + CHALLENGE_TTL_MS) }, now, (o) => challengeRefusal(o, bounds, now));
    if (refused !== null) throw refused;
    return challenge;
  }

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

  private async start(store: ConsoleStore, key: ApiKeyRecord, passkey: Passkey, via: string): Promise<string> {
    const sessionId = secret();
    const idHash = sha256(sessionId);
    const now = this.deps.clock.now();
    await store.startSession(
      { idHash, apiKeyId: key.id, credentialId: passkey.credentialId, created: now, lastSeen: now, ended: null },
      auditEvent('approver.session-started', now, apiKeyActor(key.id), key.vaultId, key.id, { session: shortId(idHash), via }),
    );
    return sessionId;
  }

  private async vaultName(vaultId: string): Promise<string> {
    return (await requireVault(this.deps.repository, vaultId)).name;
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

  private async viewContext(vaultId: string): Promise<ApprovalViewContext> {
    const { store } = this.parts();
    const [state, passkeys, keys] = await Promise.all([this.deps.policies.state(vaultId), store.passkeys(vaultId), this.deps.repository.listApiKeys(vaultId)]);
    const labels = keyLabelsOf(keys);
    // The operator's names come from the document in force whether or not the vault is frozen (its approvers
    // still read and reject what it holds); a governed state that does not verify names nothing.
    const policy = state.problem === null ? state.document : null;
    const names = new Map(passkeys.map((p) => [p.apiKeyId, p.name]));
    const byId = new Map(Object.entries(this.deps.chainIds).map(([name, id]) => [id, name]));
    return {
      policy,
      walletName: () => null,
      chainId: (name) => this.deps.chainIds[name] ?? null,
      chainName: (id) => byId.get(id) ?? null,
      approverName: (id) => names.get(id) ?? null,
      keyLabel: (id) => labels.get(id) ?? null,
      hasPasskey: (id) => names.has(id),
      payloads: this.deps.payloads,
    };
  }

  /** Views with the wallets' names filled in (one read per wallet shown). */
  private async views(vaultId: string, approvals: readonly Approval[]): Promise<(ApprovalView & { vaultName: string })[]> {
    const ctx = await this.viewContext(vaultId);
    const views = approvals.map((a) => approvalView(a, ctx));
    const now = this.deps.clock.now();
    const names = new Map<string, string | null>();
    for (const v of views) {
      const address = v.wallet.address;
      if (address !== null && !names.has(address)) names.set(address, (await this.deps.repository.findWallet(vaultId, address, now))?.name ?? null);
    }
    const vaultName = await this.vaultName(vaultId);
    return views.map((v) => ({ ...v, vaultName, ...(v.wallet.address === null ? {} : { wallet: { address: v.wallet.address, name: names.get(v.wallet.address) ?? null } }) }));
  }

  /** `GET /console/api/approvals?state=pending|decided`: the approver's vault's approvals, newest first (at most 100). */
  async approvals(caller: ConsoleCaller, state: 'pending' | 'decided'): Promise<ApprovalView[]> {
    const vaultId = caller.approver.vault;
    const statuses: ApprovalStatus[] = state === 'pending' ? ['pending'] : ['approved', 'rejected', 'expired'];
    const newest = await Promise.all(statuses.map((status) => this.newest(vaultId, status)));
    const chosen = newest.flat().sort((a, b) => b.created.getTime() - a.created.getTime() || (a.id < b.id ? 1 : -1)).slice(0, LIST_MAX);
    return this.views(vaultId, chosen);
  }

  /** The newest LIST_MAX approvals of one status (the store lists oldest first: the last page). */
  private async newest(vaultId: string, status: ApprovalStatus): Promise<readonly Approval[]> {
    const { count } = await this.deps.listApprovals.execute(vaultId, { status, count: 1 });
    if (count === 0) return [];
    return (await this.deps.listApprovals.execute(vaultId, { status, offset: Math.max(0, count - LIST_MAX), count: LIST_MAX })).page;
  }

  /** `GET /console/api/approvals/{id}`: one approval decoded, with the audit records whose subject it is. */
  async approval(caller: ConsoleCaller, id: string): Promise<{ approval: ApprovalView; audit: AuditRecord[] }> {
    const approval = await this.deps.getApproval.execute(caller.approver.vault, id);
    const [view] = await this.views(approval.vaultId, [approval]);
    return { approval: view!, audit: await this.auditOf(approval.vaultId, approval.id, 200) };
  }

  /**
   * `GET /console/api/approvals/{id}/fields?offset=N`: a page of held typed data's fields from the N-th (the
   * view carries the first); 400 naming `offset` when it is no whole number, or the approval holds no typed data.
   */
  async typedDataFields(caller: ConsoleCaller, id: string, offset: unknown): Promise<TypedDataFieldPage> {
    const from = typeof offset === 'string' && /^\d{1,9}$/.test(offset) ? Number(offset) : Number.NaN;
    if (!Number.isSafeInteger(from)) throw invalidArgument('offset: a whole number of fields from 0');
    const approval = await this.deps.getApproval.execute(caller.approver.vault, id);
    const held = heldRequestOf(approval);
    if (held.kind !== TYPED_DATA_KIND.name) throw invalidArgument(`approval ${approval.id}: holds no typed data (its kind is ${held.kind})`);
    return typedDataFieldPage(held.held.payload, from);
  }

  /** `POST /console/api/approvals/{id}/challenge`: the assertion options whose challenge is the Decision digest. */
  async decisionOptions(caller: ConsoleCaller, id: string, decision: unknown): Promise<{ options: unknown }> {
    const { rp } = this.parts();
    const kind = decisionOf(decision);
    const approval = await this.deps.getApproval.execute(caller.approver.vault, id);
    return { options: await rp.authenticationOptions(decisionChallenge(this.deps.payloads, approval, kind), [caller.passkey]) };
  }

  /**
   * `POST /console/api/approvals/{id}/approve|reject`: the signed-in approver's passkey assertion over the
   * Decision digest (this approval, its request, this decision), at the console's origin and rpId, of the
   * session's credential, its counter growing; else 403 APPROVAL_SIGNATURE_INVALID and nothing written.
   * Then the vote as any approver's (VoteOnApproval): groups, self votes, the quorum and the release.
   */
  async vote(caller: ConsoleCaller, id: string, decision: ApprovalVoteKind, response: unknown): Promise<ApprovalView> {
    const { store, rp } = this.parts();
    const approval = await this.deps.getApproval.execute(caller.approver.vault, id);
    // A refusal is on record (auth.refused, as for an address vote); the vote is not written.
    const refuse = async (reason: string, message: string): Promise<never> => {
      await this.deps.auditLog.append(
        auditEvent('auth.refused', this.deps.clock.now(), apiKeyActor(caller.approver.id), caller.approver.vault, caller.approver.id, { approval: id, operation: 'approval vote (passkey)', reason }),
      );
      throw badSignature(message);
    };
    const credentialId = rp.assertionCredentialId(response);
    if (credentialId === null || !sameText(credentialId, caller.passkey.credentialId)) {
      return refuse('assertion of another credential', `approval ${id}: the assertion is not of the passkey this session was signed in with`);
    }
    const verified = await rp.verifyAssertion(response, decisionChallenge(this.deps.payloads, approval, decision), caller.passkey);
    if (verified === null) {
      return refuse('assertion not over this Decision at this origin', `approval ${id}: the assertion is not this approver's passkey over the EIP-712 Decision to ${decision} this approval at ${rp.origin}`);
    }
    if (!(verified.counter === 0 && caller.passkey.counter === 0) && !(await store.advanceCounter(caller.passkey.apiKeyId, verified.counter))) {
      return refuse('authenticator counter did not grow', `approval ${id}: the authenticator counter went back (a cloned passkey?)`);
    }
    const decided = await this.deps.voteOnApproval.execute({ principal: caller.principal, id, vote: decision, passkeyAssertion: JSON.stringify(response) });
    const [view] = await this.views(decided.vaultId, [decided]);
    return view!;
  }

  private auditOf(vaultId: string, subject: string, limit: number): Promise<AuditRecord[]> {
    return this.parts().store.auditOf(vaultId, subject, limit);
  }

  /** `GET /console/api/proposals`: the vault's governance proposals (read-only here, docs/console.md). */
  async proposals(caller: ConsoleCaller, state: 'pending' | 'decided'): Promise<ProposalView[]> {
    const all = await this.deps.governance.list(caller.approver.vault);
    return all.filter((p) => (state === 'pending') === (p.status === 'pending'));
  }

  async proposal(caller: ConsoleCaller, id: string): Promise<{ proposal: ProposalView; audit: AuditRecord[] }> {
    const proposal = await this.deps.governance.get(caller.approver.vault, id);
    return { proposal, audit: await this.auditOf(caller.approver.vault, id, 200) };
  }

  /** `GET /console/api/history`: decided approvals and proposals. */
  async history(caller: ConsoleCaller): Promise<{ approvals: ApprovalView[]; proposals: ProposalView[] }> {
    return { approvals: await this.approvals(caller, 'decided'), proposals: await this.proposals(caller, 'decided') };
  }
}

/** `30m`, `24h`, `7d` for an invite's lifetime. */
function windowOf(text: string): number {
  try {
    return parseWindow(text);
  } catch {
    throw invalidArgument(`expires: ${JSON.stringify(text.slice(0, 40))} is not a whole number and a unit (m, h, d) from 1m to 30d, such as 24h`);
  }
}

function decisionOf(value: unknown): DecisionKind {
  if (value !== 'approve' && value !== 'reject') throw invalidArgument('decision: "approve" or "reject"');
  return value;
}

/** The challenge clientDataJSON names (base64url), or null when the response has none readable. */
function clientChallenge(response: unknown): string | null {
  const data = (response as { response?: { clientDataJSON?: unknown } } | null)?.response?.clientDataJSON;
  if (typeof data !== 'string' || data.length > 8192) return null;
  try {
    const challenge = (JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
    return typeof challenge === 'string' && WELL_FORMED_SECRET.test(challenge) ? challenge : null;
  } catch {
    return null;
  }
}

/** Constant-time equality of two texts (lengths are not secret). */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
