import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Approval } from '../../domain/approval.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { ApiKeyRecord } from '../../domain/vault.js';
import type { ApiKeyStore } from '../../ports/api-key-store.port.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { ChallengePurpose, ConsoleStore, Passkey } from '../../ports/console-store.port.js';
import type { RelyingParty } from '../../ports/relying-party.port.js';
import type { StandardPayloads } from '../../ports/standard-payloads.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { approvalView, type ApprovalView, type ApprovalViewContext } from '../approvals/approval-view.js';
import { keyLabelsOf } from '../approvals/approval-reads.js';
import type { GetApproval } from '../approvals/get-approval.use-case.js';
import type { ListApprovals } from '../approvals/list-approvals.use-case.js';
import type { VoteOnApproval } from '../approvals/vote-on-approval.use-case.js';
import type { GovernedApiKey } from '../../domain/governance.js';
import { apiKeyActor, auditEvent } from '../audit/audit-actor.js';
import type { EntriesProposer, Governance, ProposalView } from '../governance/governance.use-case.js';
import type { PolicyCache } from '../signing/policy-cache.js';
import type { Principal } from '../access/principal.js';
import { challengeRefusal, clientRefusal, DEFAULT_CHALLENGE_BOUNDS, type ChallengeBounds } from './sign-in-challenges.js';
import { requireVault } from '../wallets/wallet-lookup.js';

/*
 * The approvers' console (docs/console.md): invites, passkey enrolment, console sessions, and
 * approvals seen decoded and decided with a passkey. An enrolled approver is an API key (role approver,
 * the invite's vault and group) with no usable bearer secret and a passkey; its votes are WebAuthn
 * assertions over the EIP-712 Decision digest, verified when cast and again at release (PasskeyVotes).
 *
 * One room per concern, each a use case of its own over the same ConsoleDeps: ConsoleInvites (the
 * operator's invites and list), ConsoleEnrolment, ConsoleSessions (sign-in and the session each request
 * finds), ConsoleReview (approvals and proposals read) and ConsoleVotes. What they share is here: the
 * approver as shown, the console's secrets, challenges handed out, sessions started and approvals shown.
 */

/** A sign-in challenge is good for one use within this long. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** The invite's bytes: what the URL fragment carries (base64url). */
const SECRET_BYTES = 32;

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
export const secret = (): string => randomBytes(SECRET_BYTES).toString('base64url');
/** A short public id of a hashed secret, for the audit trail (never the secret, never the whole hash). */
export const shortId = (hash: string): string => hash.slice(0, 16);
export const WELL_FORMED_SECRET = /^[A-Za-z0-9_-]{43}$/;

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

export interface ConsoleDeps {
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
  readonly getApproval: Pick<GetApproval, 'execute' | 'shownPolicy'>;
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

export const unavailable = (why: string) => new DomainError(ErrorCode.CONSOLE_UNAVAILABLE, `the approvers' console is not enabled: ${why} (docs/console.md)`);
export const signedOut = (why: string) => new DomainError(ErrorCode.UNAUTHENTICATED, `console: ${why}; sign in with your passkey`);
export const badSignature = (why: string) => new DomainError(ErrorCode.APPROVAL_SIGNATURE_INVALID, why);

export function approverOf(key: ApiKeyRecord, passkey: Passkey, vaultName: string, enrolment?: Enrolment): Approver {
  return {
    id: key.id, name: passkey.name, vault: key.vaultId, vaultName, group: key.group ?? null, created: passkey.created.toISOString(),
    ...(enrolment === undefined ? {} : { enrolment }),
  };
}

/** The pending proposal (of `pending`) that lists key `apiKeyId` with passkey `credentialId`: its enrolment's. */
export const enrolmentProposal = (pending: readonly ProposalView[], apiKeyId: string, credentialId: string): string | null =>
  pending.find((p) => p.status === 'pending' && p.state.apiKeys?.some((k) => k.id === apiKeyId && k.passkey?.credentialId === credentialId))?.id ?? null;

/** What every room of the console is built on: its deps, and the parts of the console they share. */
export abstract class ConsoleRoom {
  constructor(protected readonly deps: ConsoleDeps) {}

  /** VAULT_PUBLIC_URL, or undefined when the console is not enabled. */
  publicUrl(): string | undefined {
    return this.deps.publicUrl;
  }

  protected parts(): { store: ConsoleStore; rp: RelyingParty } {
    if (this.deps.relyingParty === undefined) throw unavailable('VAULT_PUBLIC_URL is not set');
    if (this.deps.store === undefined) throw unavailable('this persistence holds no console tables');
    return { store: this.deps.store, rp: this.deps.relyingParty };
  }

  /**
   * A fresh challenge stored for `client` (who asked: an address, an IPv6 client's network), or the 429 of
   * the bound it would go past (sign-in-challenges.ts). A client at its own bound is refused on one read:
   * a flood from one address never waits for (nor holds up) the count of everyone's.
   */
  protected async handOut(store: ConsoleStore, purpose: ChallengePurpose, subject: string | null, client: string): Promise<string> {
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

  /** A new session of the key with this passkey, audited (approver.session-started); its id, which only the cookie keeps. */
  protected async start(store: ConsoleStore, key: ApiKeyRecord, passkey: Passkey, via: string): Promise<string> {
    const sessionId = secret();
    const idHash = sha256(sessionId);
    const now = this.deps.clock.now();
    await store.startSession(
      { idHash, apiKeyId: key.id, credentialId: passkey.credentialId, created: now, lastSeen: now, ended: null },
      auditEvent('approver.session-started', now, apiKeyActor(key.id), key.vaultId, key.id, { session: shortId(idHash), via }),
    );
    return sessionId;
  }

  protected async vaultName(vaultId: string): Promise<string> {
    return (await requireVault(this.deps.repository, vaultId)).name;
  }

  /** The names an approval of the vault is shown with: the policy in force, passkeys' and keys' labels, chains. */
  protected async viewContext(vaultId: string): Promise<ApprovalViewContext> {
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
  protected async views(vaultId: string, approvals: readonly Approval[]): Promise<(ApprovalView & { vaultName: string })[]> {
    const ctx = await this.viewContext(vaultId);
    const views = approvals.map((a) => approvalView(a, ctx));
    const now = this.deps.clock.now();
    // An approver deciding on a wallet's request is told when its key was exported (it may be known outside the vault).
    const found = new Map<string, { name: string | null; exported: Date | null; derivationPath: string | null }>();
    for (const v of views) {
      const address = v.wallet.address;
      if (address !== null && !found.has(address)) {
        const w = await this.deps.repository.findWallet(vaultId, address, now);
        found.set(address, { name: w?.name ?? null, exported: w?.exported ?? null, derivationPath: w?.derivationPath ?? null });
      }
    }
    const vaultName = await this.vaultName(vaultId);
    return views.map((v) => {
      if (v.wallet.address === null) return { ...v, vaultName };
      const w = found.get(v.wallet.address);
      return {
        ...v,
        vaultName,
        wallet: {
          address: v.wallet.address,
          name: w?.name ?? null,
          ...(w?.exported ? { exported: w.exported.toISOString() } : {}),
          // An HD wallet's key is one of its vault's seed: an approver sees which (docs/keystores.md#hd-wallets).
          ...(w?.derivationPath ? { derivationPath: w.derivationPath } : {}),
        },
      };
    });
  }
}

/** The challenge clientDataJSON names (base64url), or null when the response has none readable. */
export function clientChallenge(response: unknown): string | null {
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
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
