import { DomainError, ErrorCode, invalidArgument } from '../../domain/errors.js';
import { authorizeOperator, parseOperatorName, parseOperatorRoles, type OperatorPermission, type OperatorRecord, type OperatorRole } from '../../domain/operator.js';
import { showValue } from '../../domain/show-value.js';
import { isWellFormedVaultId } from '../../domain/vault.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { OperatorStore } from '../../ports/operator-store.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import { audit, auditEvent, OPERATOR, operatorActor } from '../audit/audit-actor.js';
import { requireVault } from '../wallets/wallet-lookup.js';
import { secretMatches } from './api-key-format.js';
import { generateOperatorCredential, parseOperatorCredential } from './operator-credential.js';

/** An operator as shown: everything but the credential's hash. */
export type OperatorView = Omit<OperatorRecord, 'secretHash'>;
const view = ({ secretHash: _h, ...rest }: OperatorRecord): OperatorView => rest;

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
  ) {}

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
    const parsed = parseOperatorCredential(credential);
    if (parsed === null) return refused('malformed operator credential');
    const found = this.operators === undefined ? null : await this.operators.findOperator(parsed.id);
    const matches = found !== null && secretMatches(parsed.secret, found.secretHash);
    if (!matches || found.revoked !== null) return refused('invalid operator credential');
    return view(found);
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
