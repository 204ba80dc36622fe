import { DomainError, ErrorCode, invalidArgument } from './errors.js';
import { showValue } from './show-value.js';

/*
 * Operators are the people who run the vault: each has a name (what the audit trail records), roles
 * (what they may do) and a scope (the vaults they may do it on). docs/operators.md is the promise this
 * module keeps: every action of the admin API names the permission it needs here, once.
 */

/** vault-admin: vaults, policies, freezes; key-admin: API keys, freezes; auditor: reads only. */
export const OPERATOR_ROLES = ['vault-admin', 'key-admin', 'auditor'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** What an admin action needs: one of these, each granted to the roles PERMITTED lists. */
export type OperatorPermission =
  | 'vaults.read'
  | 'vaults.create'
  | 'api-keys.read'
  | 'api-keys.change'
  | 'policy.read'
  | 'policy.change'
  | 'vault.freeze'
  | 'vault.unfreeze'
  | 'approvers.read'
  | 'approvers.change'
  | 'webhooks.read'
  | 'webhooks.change'
  | 'governance.read'
  | 'governance.change';

/** The one table of who may do what (docs/operators.md, "Roles"). */
export const PERMITTED: Readonly<Record<OperatorPermission, readonly OperatorRole[]>> = {
  'vaults.read': ['vault-admin', 'key-admin', 'auditor'],
  'vaults.create': ['vault-admin'],
  'api-keys.read': ['vault-admin', 'key-admin', 'auditor'],
  'api-keys.change': ['key-admin'],
  'policy.read': ['vault-admin', 'key-admin', 'auditor'],
  'policy.change': ['vault-admin'],
  // An emergency brake: whoever administers the vault or its keys may pull it (lifting it is governance's).
  'vault.freeze': ['vault-admin', 'key-admin'],
  // Lifting one is a proposal its quorum signs on a governed vault; at once on another: the vault's administrator's.
  'vault.unfreeze': ['vault-admin'],
  // Approvers are API keys with a passkey: whoever administers the keys invites and revokes them.
  'approvers.read': ['vault-admin', 'key-admin', 'auditor'],
  'approvers.change': ['key-admin'],
  // A webhook's receiver may be what watches the vault: its administrator's, as the policy is.
  'webhooks.read': ['vault-admin', 'key-admin', 'auditor'],
  'webhooks.change': ['vault-admin'],
  'governance.read': ['vault-admin', 'key-admin', 'auditor'],
  'governance.change': ['vault-admin'],
};

export interface OperatorRecord {
  readonly id: string;
  readonly name: string;
  readonly roles: readonly OperatorRole[];
  /** The vaults the operator acts on; null: every vault (and only then may it create vaults). */
  readonly vaults: readonly string[] | null;
  /** sha256 of the credential's secret, hex; the credential itself is never stored. */
  readonly secretHash: string;
  readonly created: Date;
  readonly revoked: Date | null;
}

/**
 * Lower case only, so `alice` and `Alice` cannot be two people in the trail; `@` and `+` so that an
 * operator can be named by the e-mail address the identity provider signs (`alice@example.com`).
 */
const NAME = /^[a-z0-9][a-z0-9._@+-]{0,63}$/;

export const isOperatorName = (text: string): boolean => NAME.test(text);

export function parseOperatorName(text: string): string {
  if (!NAME.test(text)) throw invalidArgument(`name: ${showValue(text)} is not an operator name (1 to 64 of a-z, 0-9, ".", "_", "-", "@", "+", starting with a letter or digit)`);
  return text;
}

/** `vault-admin,auditor`: at least one role, each known, none twice. */
export function parseOperatorRoles(text: string): OperatorRole[] {
  const roles = text.split(',').map((r) => r.trim());
  if (roles.length === 0 || roles.some((r) => r === '')) throw invalidArgument(`roles: give at least one of ${OPERATOR_ROLES.join(', ')}, comma-separated`);
  const unknown = roles.find((r) => !(OPERATOR_ROLES as readonly string[]).includes(r));
  if (unknown !== undefined) throw invalidArgument(`roles: ${showValue(unknown)} is not an operator role (${OPERATOR_ROLES.join(', ')})`);
  if (new Set(roles).size !== roles.length) throw invalidArgument('roles: a role is listed twice');
  return OPERATOR_ROLES.filter((r) => roles.includes(r));
}

/**
 * Refuses (403 ROLE_REQUIRED, naming the operator, its roles and what it lacks) an action the operator's
 * roles do not grant, or one on a vault outside its scope. `vaultId` null: an action on no one vault
 * (listing, creating vaults); creating one needs an operator of every vault.
 */
export function authorizeOperator(operator: Pick<OperatorRecord, 'name' | 'roles' | 'vaults'>, permission: OperatorPermission, vaultId: string | null): void {
  const needed = PERMITTED[permission];
  if (!operator.roles.some((r) => needed.includes(r))) {
    throw new DomainError(
      ErrorCode.ROLE_REQUIRED,
      `operator ${operator.name} (roles ${operator.roles.join(',')}) may not do this (${permission}): it needs the role ${needed.join(' or ')}`,
    );
  }
  if (operator.vaults === null) return;
  if (vaultId === null && permission === 'vaults.create') {
    throw new DomainError(ErrorCode.ROLE_REQUIRED, `operator ${operator.name} acts on vaults ${operator.vaults.join(', ')} only: creating a vault needs an operator of every vault`);
  }
  if (vaultId !== null && !operator.vaults.includes(vaultId)) {
    throw new DomainError(ErrorCode.ROLE_REQUIRED, `operator ${operator.name} acts on vaults ${operator.vaults.join(', ')} only, not vault ${showValue(vaultId)}`);
  }
}

/** Whether a vault is in the operator's scope (listing shows only those). */
export const inScope = (operator: Pick<OperatorRecord, 'vaults'>, vaultId: string): boolean => operator.vaults === null || operator.vaults.includes(vaultId);
