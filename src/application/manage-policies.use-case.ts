import { parseSignPolicy, type SignPolicy, type SignPolicyInput } from '../domain/sign-policy.js';
import { standardPolicyDetails } from '../domain/standard-sign-policy.js';
import type { AuditLog } from '../ports/audit-log.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { PolicyRepository } from '../ports/policy-repository.port.js';
import type { VaultStore } from '../ports/vault-store.port.js';
import { audit, OPERATOR } from './audit-actor.js';
import { CHAINS } from './sign-call.use-case.js';
import { requireVault } from './wallet-lookup.js';

/**
 * Operator actions on a vault's sign policy. `set` replaces the whole policy (a list not given is
 * absent, so it allows everything of its kind); every change is recorded as policy.changed.
 */
export class ManagePolicies {
  constructor(
    private readonly repository: VaultStore,
    private readonly policies: PolicyRepository,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
    /** Called after a change, so this process's cached copy is dropped at once. */
    private readonly onChange: (vaultId: string) => void = () => undefined,
    /** Chain names a policy may list: the interface's and any the operator added. */
    private readonly chains: readonly string[] = CHAINS,
  ) {}

  async show(vaultId: string): Promise<SignPolicy | null> {
    await requireVault(this.repository, vaultId);
    return this.policies.find(vaultId);
  }

  async set(vaultId: string, input: SignPolicyInput): Promise<SignPolicy> {
    const policy = parseSignPolicy(input, this.chains);
    await requireVault(this.repository, vaultId);
    await this.save(vaultId, policy);
    return policy;
  }

  /** Removing a policy that does not exist changes nothing and records nothing. */
  async clear(vaultId: string): Promise<{ cleared: boolean }> {
    await requireVault(this.repository, vaultId);
    if ((await this.policies.find(vaultId)) === null) return { cleared: false };
    await this.save(vaultId, null);
    return { cleared: true };
  }

  private async save(vaultId: string, policy: SignPolicy | null): Promise<void> {
    const now = this.clock.now();
    await this.policies.save(vaultId, policy, now);
    this.onChange(vaultId);
    const list = (values: readonly string[] | undefined) => (values ? values.join(',') : null);
    await audit(this.auditLog, 'policy.changed', now, OPERATOR, vaultId, vaultId, {
      policy: policy === null ? 'none' : 'set',
      chains: list(policy?.chains),
      contracts: list(policy?.contracts),
      selectors: list(policy?.selectors),
      senders: list(policy?.senders),
      contractUniqs: policy?.uniqs ? Object.entries(policy.uniqs).map(([c, u]) => `${c}=${u}`).join(',') : null,
      // The contracts whose uniq an RPC chooses: the one risk an operator takes knowingly, so on record.
      trustRpcUniq: list(policy?.trustRpcUniq),
      ...standardPolicyDetails(policy),
    });
  }
}
