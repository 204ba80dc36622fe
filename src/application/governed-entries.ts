import { governedWebhook } from '../domain/governance.js';
import type { GovernedApiKey } from '../domain/governance.js';
import { governanceUnverified } from './governance-verifier.js';
import type { PolicyCache } from './policy-cache.js';

/**
 * What a vault's verified state in force says of its API keys and webhook endpoints (docs/governance.md,
 * "API keys and webhooks"), read through the policy cache: a map lookup on the hot path, a load at most
 * every few seconds per vault, and nothing more for a vault that is not governed.
 */

/**
 * The API keys the state lists, or null when its keys are not governed (the vault is not governed, or its
 * state predates governed keys). A chain that stopped verifying part-way answers with the last state that
 * did (signed all the same); one whose genesis does not verify answers nothing (GOVERNANCE_UNVERIFIED)
 * rather than fall back to the rows a database writer may have written.
 */
export async function governedKeysOf(cache: PolicyCache, vaultId: string): Promise<readonly GovernedApiKey[] | null> {
  const state = await cache.state(vaultId);
  if (state.governed !== null) return state.governed.head.apiKeys ?? null;
  if (state.problem !== null) throw governanceUnverified(vaultId, state.problem);
  return null;
}

/**
 * Who votes on a governed vault's held signs (docs/governance.md): the approvers its verified state names
 * and, when the state governs API keys, each key's credential as the state lists it (a key absent from
 * the map has none). Null for a vault that is not governed; a vault whose state does not verify refuses
 * (GOVERNANCE_UNVERIFIED). One read of the cached state serves the vote's check and the release's.
 */
export async function governedVotersOf(cache: PolicyCache, vaultId: string): Promise<GovernedVoting | null> {
  const state = await cache.state(vaultId);
  if (state.problem !== null) throw governanceUnverified(vaultId, state.problem);
  if (state.governed === null) return null;
  const keys = state.governed.head.apiKeys;
  return {
    approvers: state.governed.head.governance.approvers,
    credentials: keys === undefined ? null : new Map(keys.map((k) => [k.id, k.approverAddress])),
  };
}

export interface GovernedVoting {
  readonly approvers: readonly string[];
  /** Each key's credential as the signed state lists it; null when the state does not govern keys. */
  readonly credentials: ReadonlyMap<string, string | null> | null;
}

/**
 * Whether events go to this endpoint row: on a vault whose state governs its webhooks, only when the state
 * lists its id with the same URL and events (a row a database writer adds, or redirects, gets nothing; one
 * the state no longer lists stops). A vault whose genesis does not verify delivers to none of its rows.
 */
export async function isServedEndpoint(cache: PolicyCache, endpoint: { id: string; vaultId: string; url: string; events: readonly string[] }): Promise<boolean> {
  const state = await cache.state(endpoint.vaultId);
  if (state.governed === null) return state.problem === null;
  const listed = state.governed.head.webhooks;
  if (listed === undefined) return true;
  const entry = listed.find((w) => w.id === endpoint.id);
  const row = governedWebhook(endpoint);
  return entry !== undefined && entry.url === row.url && [...entry.events].sort().join(',') === row.events.join(',');
}
