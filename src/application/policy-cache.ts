import type { SignPolicy } from '../domain/sign-policy.js';
import type { Clock } from '../ports/clock.port.js';
import type { PolicyRepository } from '../ports/policy-repository.port.js';
import { TtlCache } from './ttl-cache.js';

/** How long a policy read is reused: a change made elsewhere (the CLI, another instance) applies within this. */
export const POLICY_CACHE_TTL_MS = 5_000;
const MAX_VAULTS = 10_000;

/**
 * Sign reads its vault's policy on every request; this keeps each read (including "no policy") for a
 * few seconds, bounded in size. Changes made through this process invalidate their vault at once.
 */
export class PolicyCache {
  private readonly entries: TtlCache<string, SignPolicy | null>;

  constructor(
    private readonly repository: PolicyRepository,
    private readonly clock: Clock,
    ttlMs = POLICY_CACHE_TTL_MS,
  ) {
    this.entries = new TtlCache(ttlMs, MAX_VAULTS);
  }

  async find(vaultId: string): Promise<SignPolicy | null> {
    const now = this.clock.now().getTime();
    const hit = this.entries.get(vaultId, now);
    if (hit) return hit.value;
    const policy = await this.repository.find(vaultId);
    this.entries.set(vaultId, policy, now);
    return policy;
  }

  invalidate(vaultId: string): void {
    this.entries.delete(vaultId);
  }
}
