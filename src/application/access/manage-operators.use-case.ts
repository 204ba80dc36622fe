import { DomainError, ErrorCode, invalidArgument } from '../../domain/errors.js';
import { authorizeOperator, isOperatorName, parseOperatorName, parseOperatorRoles, type OperatorPermission, type OperatorRecord, type OperatorRole } from '../../domain/operator.js';
import { showValue } from '../../domain/show-value.js';
import { isWellFormedVaultId } from '../../domain/vault.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { OperatorIdentityProvider, PendingSignIn } from '../../ports/operator-identity.port.js';
import type { OperatorStore } from '../../ports/operator-store.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import { audit, auditEvent, OPERATOR, operatorActor } from '../audit/audit-actor.js';
import { requireVault } from '../wallets/wallet-lookup.js';
import { secretMatches } from './api-key-format.js';
import { generateOperatorCredential, parseOperatorCredential } from './operator-credential.js';

/** An operator as shown: everything but the credential's hash. */
export type OperatorView = Omit<OperatorRecord, 'secretHash'>;
const view = ({ secretHash: _h, ...rest }: OperatorRecord): OperatorView => rest;

/** A compact JWS (three base64url parts): what an identity provider's token looks like, routed to its check. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const tokenRefused = (why: string) => new DomainError(ErrorCode.UNAUTHENTICATED, `operator token refused: ${why}`);

/** A sign-in through the identity provider: the operator, and the ID token that is its Bearer credential until `expires`. */
export interface OperatorSignedIn {
  readonly operator: OperatorView;
  readonly token: string;
  readonly expires: Date;
}

/**
 * Named operators (docs/operators.md): made and revoked by the local operator (`wallet-vault operators`,
 * whoever holds the store: break-glass), each with a credential shown once; and the check of a presented
 * credential, which the admin API runs on every call.
 */
export class ManageOperators {
  constructor(
    /** Absent (a persistence of an earlier release): no operator exists, every credential is refused. */
    private readonly operators: OperatorStore | undefined,
    private readonly vaults: VaultStore,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
    /** VAULT_OIDC_ISSUER's provider; absent: sign-in is not configured (OIDC_UNAVAILABLE) and only `wvop_` credentials are accepted. */
    private readonly identity?: OperatorIdentityProvider,
    /** VAULT_PUBLIC_URL: where the provider sends a browser back after sign-in; absent: Bearer tokens only. */
    private readonly publicUrlSetting?: string,
  ) {}

  /** VAULT_PUBLIC_URL, where the browser sign-in comes back to; OIDC_UNAVAILABLE when sign-in or the public URL is not configured. */
  signInPublicUrl(): string {
    this.identityProvider();
    if (this.publicUrlSetting === undefined) {
      throw new DomainError(ErrorCode.OIDC_UNAVAILABLE, 'operator sign-in with OpenID Connect is not configured: the browser sign-in needs VAULT_PUBLIC_URL (where the provider sends the browser back)');
    }
    return this.publicUrlSetting;
  }

  /** A new operator; its credential is in the answer only. `vaults`: its scope (absent: every vault). */
  async create(input: { name: string; roles: string | readonly OperatorRole[]; vaults?: readonly string[] }, actor: string = OPERATOR): Promise<{ operator: OperatorView; credential: string }> {
    const store = this.store();
    const name = parseOperatorName(input.name);
    const roles = parseOperatorRoles(typeof input.roles === 'string' ? input.roles : input.roles.join(','));
    const vaults = input.vaults === undefined ? null : [...new Set(input.vaults)];
    if (vaults !== null && vaults.length === 0) throw invalidArgument('vault: give at least one vault, or none for every vault');
    for (const vaultId of vaults ?? []) await requireVault(this.vaults, vaultId);
    const { id, credential, secretHash } = generateOperatorCredential();
    const record: OperatorRecord = { id, name, roles, vaults, secretHash, created: this.clock.now(), revoked: null };
    const recorded = auditEvent('operator.created', record.created, actor, null, name, { id, roles: roles.join(','), vaults: vaults === null ? null : vaults.join(',') });
    if (!(await store.insertOperator(record, recorded))) throw new DomainError(ErrorCode.CONFLICT, `name: an operator named ${name} exists already (names are never reused, also once revoked)`);
    return { operator: view(record), credential };
  }

  async list(): Promise<OperatorView[]> {
    return this.operators === undefined ? [] : (await this.operators.listOperators()).map(view);
  }

  /** Revokes the operator named `name`: its credential is refused from the next call on. */
  async revoke(name: string, actor: string = OPERATOR): Promise<OperatorView> {
    const store = this.store();
    const found = await store.findOperatorByName(name);
    if (found === null) throw invalidArgument(`name: no operator is named ${showValue(name)}`);
    if (found.revoked !== null) return view(found);
    const now = this.clock.now();
    await store.revokeOperator(found.id, now, auditEvent('operator.revoked', now, actor, null, found.name, { id: found.id }));
    return view({ ...found, revoked: now });
  }

  /**
   * The operator a presented credential stands for: unknown, malformed and revoked credentials all get
   * the same 401, so the answer is no oracle. The secret is compared by hash, in constant time.
   */
  async authenticate(credential: string | undefined): Promise<OperatorView> {
    const refused = (why: string): never => {
      throw new DomainError(ErrorCode.UNAUTHENTICATED, why);
    };
    if (credential === undefined) return refused('the admin API needs an operator credential (Authorization: Bearer wvop_…; wallet-vault operators create)');
    if (this.identity !== undefined && !credential.startsWith('wvop_') && JWT_SHAPE.test(credential)) return (await this.ofToken(this.identity, credential)).operator;
    const parsed = parseOperatorCredential(credential);
    if (parsed === null) return refused('malformed operator credential');
    const found = this.operators === undefined ? null : await this.operators.findOperator(parsed.id);
    const matches = found !== null && secretMatches(parsed.secret, found.secretHash);
    if (!matches || found.revoked !== null) return refused('invalid operator credential');
    return view(found);
  }

  /**
   * Where to send a browser to sign in at the identity provider (coming back at `redirectUri`), and what
   * it keeps until then (state, nonce, PKCE verifier: the caller puts them in an HttpOnly cookie).
   */
  async beginSignIn(redirectUri: string): Promise<{ url: string; pending: PendingSignIn }> {
    return this.identityProvider().begin(redirectUri);
  }

  /**
   * The provider's answer at `callbackUrl` redeemed: the operator its token names (by the claim
   * VAULT_OIDC_OPERATOR_CLAIM; the operator made beforehand, its roles and scope the vault's), audited
   * (`operator.signed-in`), and the ID token the operator presents as its Bearer credential until it expires.
   */
  async completeSignIn(callbackUrl: string, redirectUri: string, pending: PendingSignIn): Promise<OperatorSignedIn> {
    const identity = this.identityProvider();
    const token = await identity.complete(callbackUrl, redirectUri, pending);
    const { operator, claims, expires } = await this.ofToken(identity, token);
    await audit(this.auditLog, 'operator.signed-in', this.clock.now(), operatorActor(operator.name), null, operator.name, {
      issuer: identity.issuer,
      subject: typeof claims.sub === 'string' ? claims.sub.slice(0, 255) : null,
    });
    return { operator, token, expires };
  }

  /**
   * The operator an identity provider's token names: the token checked (signature, issuer, audience,
   * expiry at the vault's clock), then its claim VAULT_OIDC_OPERATOR_CLAIM, lower-cased, must be the name of
   * an operator that is not revoked. The provider says who; the operator's row says what it may do.
   */
  private async ofToken(identity: OperatorIdentityProvider, token: string): Promise<{ operator: OperatorView; claims: Readonly<Record<string, unknown>>; expires: Date }> {
    const { claims, expires } = await identity.verify(token, this.clock.now());
    const claim = identity.operatorClaim;
    const value = claims[claim];
    if (typeof value !== 'string' || value === '') throw tokenRefused(`it carries no ${claim} claim (VAULT_OIDC_OPERATOR_CLAIM), which names the operator`);
    // An address the provider has not verified could be anyone's.
    if (claim === 'email' && claims.email_verified === false) throw tokenRefused(`its email ${showValue(value)} is not verified by the identity provider`);
    const name = value.toLowerCase();
    if (!isOperatorName(name)) throw tokenRefused(`its ${claim} ${showValue(value)} is not an operator name`);
    const found = this.operators === undefined ? null : await this.operators.findOperatorByName(name);
    if (found === null) throw tokenRefused(`no operator is named ${showValue(name)} (its ${claim} claim); the local operator makes one: wallet-vault operators create --name ${name} --roles …`);
    if (found.revoked !== null) throw tokenRefused(`operator ${name} is revoked`);
    return { operator: view(found), claims, expires };
  }

  private identityProvider(): OperatorIdentityProvider {
    if (this.identity === undefined) {
      throw new DomainError(ErrorCode.OIDC_UNAVAILABLE, 'operator sign-in with OpenID Connect is not configured: set VAULT_OIDC_ISSUER and VAULT_OIDC_CLIENT_ID (docs/operators.md)');
    }
    return this.identity;
  }

  /**
   * Refuses (403 ROLE_REQUIRED) what the operator's roles or vault scope do not allow, and records the
   * refusal (`auth.refused`, actor the operator) before answering: who tried what is the auditor's question.
   */
  async authorize(operator: OperatorView, permission: OperatorPermission, vaultId: string | null, operation: string): Promise<void> {
    try {
      authorizeOperator(operator, permission, vaultId);
    } catch (refusal) {
      const reason = refusal instanceof Error ? refusal.message : String(refusal);
      // The path's vault only when it is one a vault could have (any text reaches here).
      const vault = vaultId !== null && isWellFormedVaultId(vaultId) ? vaultId : null;
      await audit(this.auditLog, 'auth.refused', this.clock.now(), operatorActor(operator.name), vault, operator.name, { reason, operation, roles: operator.roles.join(',') });
      throw refusal;
    }
  }

  private store(): OperatorStore {
    if (this.operators === undefined) throw new DomainError(ErrorCode.CONFLICT, 'this persistence keeps no operators (it was written for an earlier release)');
    return this.operators;
  }
}
