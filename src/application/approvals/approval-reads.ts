import { showValue } from '../../domain/show-value.js';
import { effectiveStatus, isWellFormedApprovalId, type Approval } from '../../domain/approval.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { PolicyDocument } from '../../domain/policy/policy-document.js';
import type { ApprovalStore } from '../../ports/approval-store.port.js';
import type { ApiKeyRecord } from '../../domain/vault.js';
import type { PolicyCache } from '../signing/policy-cache.js';

/* What the approvals' use cases share to read a held request: the row, its status as of now, the policy it is shown against. */

/** The approval `id` of the vault, or APPROVAL_NOT_FOUND (also for text that cannot be an id). */
export async function findApproval(store: ApprovalStore, vaultId: string, id: string): Promise<Approval> {
  const approval = isWellFormedApprovalId(id) ? await store.find(vaultId, id) : null;
  if (approval === null) throw notFound(id);
  return approval;
}

export function storeOf(store: ApprovalStore | undefined): ApprovalStore {
  if (store === undefined) throw new DomainError(ErrorCode.APPROVAL_NOT_FOUND, 'approvals: this persistence holds none');
  return store;
}

// Text that is no id is quoted (and cut): a refusal never echoes a long or odd path back as it came.
export const notFound = (id: string) => new DomainError(ErrorCode.APPROVAL_NOT_FOUND, `approval ${isWellFormedApprovalId(id) ? id : showValue(id)} not found in this vault`);
/** As every read reports it: pending turns expired at its expiry, whether the job has marked it or not. */
export const asOf = (approval: Approval, now: Date): Approval => {
  const status = effectiveStatus(approval, now);
  return status === approval.status ? approval : { ...approval, status };
};

/**
 * The policy document reads show a vault's approvals against (withPolicyQuorum): the verified one in force;
 * none for a vault whose state does not verify (its document may be a database writer's), or without policies.
 */
export async function documentForReads(policies: Pick<PolicyCache, 'state'> | undefined, vaultId: string): Promise<PolicyDocument | null> {
  if (policies === undefined) return null;
  const state = await policies.state(vaultId);
  return state.problem === null ? state.document : null;
}

/**
 * The policy document approvals are shown against (GetApproval.shownPolicy): its contract names, uniq pins
 * and the functions of its rules, whose parameter names name a held call's arguments; null: none.
 */
export type ShownPolicy = PolicyDocument | null;

/** API key id → its label, for the keys that have one. */
export type KeyLabels = ReadonlyMap<string, string>;
export const keyLabelsOf = (keys: readonly ApiKeyRecord[]): KeyLabels => new Map(keys.flatMap((k) => (k.label == null ? [] : [[k.id, k.label] as const])));
