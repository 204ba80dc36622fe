import type { Approval } from '../../domain/approval.js';
import type { ApprovalStore } from '../../ports/approval-store.port.js';
import type { ApiKeyStore } from '../../ports/api-key-store.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { PolicyCache } from '../signing/policy-cache.js';
import { asOf, documentForReads, findApproval, keyLabelsOf, storeOf, type KeyLabels, type ShownPolicy } from './approval-reads.js';
import { withPolicyQuorum } from './held-quorum.js';

/** One approval of the vault: what is asked, the votes, the quorum the policy in force asks and once approved the Sign result. */
export class GetApproval {
  constructor(
    private readonly store: ApprovalStore | undefined,
    private readonly clock: Clock,
    private readonly policies?: Pick<PolicyCache, 'state'>,
    /** The vault's keys, for their labels; absent: approvals are shown without labels. */
    private readonly apiKeys?: Pick<ApiKeyStore, 'listApiKeys'>,
  ) {}

  async execute(vaultId: string, id: string): Promise<Approval> {
    const approval = await findApproval(storeOf(this.store), vaultId, id);
    return withPolicyQuorum(asOf(approval, this.clock.now()), await documentForReads(this.policies, vaultId));
  }

  /**
   * What the vault's policy in force says for showing its approvals: the operator's contract names
   * (`contractName`), uniq pins (`uniqBinding`) and argument names (its rules' functions). A governed vault's are those of its verified state; one
   * whose state does not verify shows none (its document may be a database writer's), and a frozen vault
   * still shows them (reading is not signing).
   */
  async shownPolicy(vaultId: string): Promise<ShownPolicy> {
    return documentForReads(this.policies, vaultId);
  }

  /**
   * The operator's labels of the vault's keys, by key id: shown beside the requester's and the
   * voters' ids, never instead of them. A label is the row's (not in a governed vault's signed state), so
   * the id stays what an approver checks.
   */
  async keyLabels(vaultId: string): Promise<KeyLabels> {
    return keyLabelsOf(await (this.apiKeys?.listApiKeys(vaultId) ?? []));
  }
}
