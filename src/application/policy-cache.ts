import { documentFromLegacy } from '../domain/policy/legacy-policy.js';
import type { PolicyDocument } from '../domain/policy/policy-document.js';
import type { ChainDirectory } from '../domain/policy/sign-intent.js';
import type { Clock } from '../ports/clock.port.js';
import { isPolicyDocument, type PolicyRepository, type StoredPolicy } from '../ports/policy-repository.port.js';
import { TtlCache } from './ttl-cache.js';

/** How long a policy read is reused: a change made elsewhere (the CLI, another instance) applies within this. */
export const POLICY_CACHE_TTL_MS = 5_000;
const MAX_VAULTS = 10_000;

/** The document a stored policy decides as: itself, or the one an earlier release's allow-lists migrate to. */
export function documentOf(stored: StoredPolicy | null, chains: ChainDirectory): PolicyDocument | null {
  if (stored === null) return null;
  return isPolicyDocument(stored) ? stored : documentFromLegacy(stored, chains);
}

/**
 * Every signature reads its vault's policy document; this keeps each read (including "no policy") for a
 * few seconds, bounded in size, as the same object (the evaluator compiles a document once per object).
 * Changes made through this process invalidate their vault at once.
 */
export class PolicyCache {
  private readonly entries: TtlCache<string, PolicyDocument | null>;

  constructor(
    private readonly repository: PolicyRepository,
    private readonly clock: Clock,
    private readonly chains: ChainDirectory,
    ttlMs = POLICY_CACHE_TTL_MS,
  ) {
    this.entries = new TtlCache(ttlMs, MAX_VAULTS);
  }

  async find(vaultId: string): Promise<PolicyDocument | null> {
    const now = this.clock.now().getTime();
    const hit = this.entries.get(vaultId, now);
    if (hit) return hit.value;
    const document = documentOf(await this.repository.find(vaultId), this.chains);
    this.entries.set(vaultId, document, now);
    return document;
  }

  invalidate(vaultId: string): void {
    this.entries.delete(vaultId);
  }
}
