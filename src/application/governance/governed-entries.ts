import { governedWebhook } from '../../domain/governance.js';
import type { GovernedApiKey, GovernedPasskey } from '../../domain/governance.js';
import { governanceUnverified } from './governance-verifier.js';
import type { PolicyCache } from '../signing/policy-cache.js';

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
 * Whether a vault is governed and, when its state governs API keys, the keys it lists (`apiKeys` null: a
 * state made before keys were governed). Null for a vault that is not governed; a vault whose state does
 * not verify refuses (GOVERNANCE_UNVERIFIED) rather than fall back to the rows; one that stopped verifying
 * part-way answers with the last state that did (as governedKeysOf).
 */
export async function governedKeysStateOf(cache: PolicyCache, vaultId: string): Promise<{ readonly apiKeys: readonly GovernedApiKey[] | null } | null> {
  const state = await cache.state(vaultId);
  if (state.governed !== null) return { apiKeys: state.governed.head.apiKeys ?? null };
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
    // A key the state lists without approver (its role taken away by a proposal) votes with nothing: the
    // votes it cast before count for nothing, as the row's roles are not the state's.
    credentials: keys === undefined ? null : new Map(keys.map((k) => [k.id, k.roles.includes('approver') ? credentialOf(k) : null])),
    groups: keys === undefined ? null : new Map(keys.map((k) => [k.id, k.group])),
  };
}

/**
 * What a key's votes are verified with, as the signed state lists it: an approver address (EIP-712
 * Decision signatures) or a passkey enrolled through the console (WebAuthn assertions over the same
 * digest). A key with both is judged by its address, as the API route votes with it.
 */
export type VoterCredential = { readonly address: string } | { readonly passkey: GovernedPasskey };

export function credentialOf(key: GovernedApiKey): VoterCredential | null {
  if (key.approverAddress !== null) return { address: key.approverAddress };
  return key.passkey === undefined ? null : { passkey: key.passkey };
}

/** The address of a credential, or null (a passkey, or none). */
export const addressOf = (credential: VoterCredential | null | undefined): string | null => (credential && 'address' in credential ? credential.address : null);
/** The passkey of a credential, or null (an address, or none). */
export const passkeyOf = (credential: VoterCredential | null | undefined): GovernedPasskey | null => (credential && 'passkey' in credential ? credential.passkey : null);

export interface GovernedVoting {
  /** The addresses that sign PolicyChange, whose address credentials vote on held signs. */
  readonly approvers: readonly string[];
  /** Each key's credential as the signed state lists it; null when the state does not govern keys. */
  readonly credentials: ReadonlyMap<string, VoterCredential | null> | null;
  /** Each key's group as the signed state lists it (null: none); null when the state does not govern keys. */
  readonly groups: ReadonlyMap<string, string | null> | null;
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
