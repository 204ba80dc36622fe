import { durationMs } from './duration.js';
import { parseAddress } from './address.js';
import { API_KEY_ROLES, type ApiKeyRole } from './api-key-access.js';
import { invalidArgument } from './errors.js';
import { keccak256 } from './keccak.js';
import type { PolicyDocument } from './policy/policy-document.js';
import { describeWindow } from './sign-limits.js';

/**
 * A governed vault's state (docs/governance.md): everything a quorum of approvers decides, as one
 * canonical JSON document whose keccak256 is what they sign (`PolicyChange.document`). Each state names
 * the hash of the one it replaces (`previous`), so the states in force form a chain from the genesis,
 * whose hash the configuration pins outside the database. Fields are only ever added (`apiKeys` and
 * `webhooks` were): a field absent from a state is "not governed yet", never "empty".
 */
export interface GovernedState {
  readonly version: 1;
  readonly vault: string;
  /** The hash of the state this one replaces; null for the genesis. */
  readonly previous: string | null;
  /** The vault's policy document; null: no policy. */
  readonly policy: PolicyDocument | null;
  readonly governance: GovernanceSettings;
  /** Freezes lifted so far: the vault is frozen while it has more freeze rows than this. */
  readonly liftedFreezes: number;
  /**
   * The API keys that authenticate, and what each may do, sorted by id (absent: the vault's keys are not
   * governed by its state, as in states made before keys were). A key row not listed is refused; a listed
   * key's roles, group, credential and (where listed) secret hash are these, whatever its row says.
   */
  readonly apiKeys?: readonly GovernedApiKey[];
  /** The webhook endpoints events are delivered to, sorted by id (absent: not governed by the state). */
  readonly webhooks?: readonly GovernedWebhook[];
  /**
   * Key exports the approvers allow (docs/governance.md, "Key export"), sorted by id (absent: none ever
   * allowed). Each is carried out once, by `wallet-vault keys export`, after the state listing it is in force.
   */
  readonly exports?: readonly GovernedExport[];
}

/** One export a quorum allowed: what leaves (a wallet's key or the HD seed) and to which recipient key. */
export interface GovernedExport {
  readonly id: string;
  readonly kind: 'wallet' | 'hd-seed';
  /** The wallet's EIP-55 address (kind `wallet`); null for the seed. */
  readonly wallet: string | null;
  /** The recipient's X25519 public key (32 bytes, base64url): the approvers sign the very key, not only its name. */
  readonly recipientKey: string;
  /** Its fingerprint (`sha256:<hex>`), as the audit trail names it. */
  readonly recipient: string;
}

/** An API key as the state governs it: its id (the public part of the key), its powers and the hash of its secret, never the secret. */
export interface GovernedApiKey {
  readonly id: string;
  /** Sorted in API_KEY_ROLES order (admin, signer, reader, approver), no repeats: one text per set, so one hash. */
  readonly roles: readonly ApiKeyRole[];
  readonly group: string | null;
  readonly approverAddress: string | null;
  /**
   * sha256 (hex) of the key's secret, as its row had it when the state was made: the hash a presented
   * secret must match, so a row whose hash a database writer replaces authenticates nobody. Safe to show
   * (the state is read by the vault's readers): the secret is 256 random bits, no hash of it can be
   * searched back. Absent from states made before secrets were governed (their rows decide until a
   * `governance set` proposal captures them), so such a state keeps the text, and the hash, it had.
   */
  readonly secretHash?: string;
  /**
   * The passkey its console votes are verified with (docs/console.md, "Governed vaults"), as enrolled.
   * Present only on a key that has one: a state without passkeys keeps the text, so the hash, it had.
   */
  readonly passkey?: GovernedPasskey;
}

/** A passkey as the state pins it: what a vote's WebAuthn assertion is verified against, never the database row. */
export interface GovernedPasskey {
  /** The credential id, base64url. */
  readonly credentialId: string;
  /** The COSE public key, base64url, as stored at enrolment. */
  readonly publicKey: string;
}

/** A webhook endpoint as the state governs it: where the vault's events go, and which. */
export interface GovernedWebhook {
  readonly id: string;
  readonly url: string;
  /** Sorted. */
  readonly events: readonly string[];
}

/** A key row's powers and secret hash as the state keeps them (with its passkey, when it has one). */
export function governedApiKey(
  key: { id: string; roles: readonly ApiKeyRole[]; group?: string | null; approverAddress?: string | null; secretHash: string },
  passkey?: GovernedPasskey | null,
): GovernedApiKey {
  const roles = API_KEY_ROLES.filter((r) => key.roles.includes(r));
  const entry = { id: key.id, roles, group: key.group ?? null, approverAddress: key.approverAddress ?? null, secretHash: key.secretHash };
  return passkey ? { ...entry, passkey: { credentialId: passkey.credentialId, publicKey: passkey.publicKey } } : entry;
}

/**
 * `keys` with the secret hash of each entry that has none (a state made before secrets were governed)
 * taken from its unrevoked row: what `governance set` proposes for such a state. Entries without such a
 * row are left as they are.
 */
export function withSecretHashes(keys: readonly GovernedApiKey[], rows: readonly { id: string; secretHash: string; revoked: Date | null }[]): GovernedApiKey[] {
  const live = new Map(rows.filter((r) => r.revoked === null).map((r) => [r.id, r.secretHash]));
  return keys.map((k) => (k.secretHash !== undefined || !live.has(k.id) ? k : { ...k, secretHash: live.get(k.id)! }));
}

/** An endpoint row as the state keeps it. */
export function governedWebhook(endpoint: { id: string; url: string; events: readonly string[] }): GovernedWebhook {
  return { id: endpoint.id, url: endpoint.url, events: [...endpoint.events].sort() };
}

/** `entries` with `entry` in place of the one of its id (or added), sorted by id: one order, so one hash. */
export function withEntry<T extends { readonly id: string }>(entries: readonly T[], entry: T): T[] {
  return [...entries.filter((e) => e.id !== entry.id), entry].sort(byId);
}

/** `entries` without the one of `id`. */
export function withoutEntry<T extends { readonly id: string }>(entries: readonly T[], id: string): T[] {
  return entries.filter((e) => e.id !== id);
}

export interface GovernanceSettings {
  /** Signatures a change needs (M). */
  readonly required: number;
  /** The approvers' addresses, EIP-55, sorted: the only keys whose PolicyChange signatures count. */
  readonly approvers: readonly string[];
  /** How long a change waits after its M-th signature (`0s`, `1h`, at most `31d`). */
  readonly delay: string;
}

/** Who may read a vault's governance (its state in force, pin, freezes): keys that read, vote or administer it. */
export const GOVERNANCE_READERS: readonly ApiKeyRole[] = ['reader', 'approver', 'admin'];

export const GOVERNED_STATE_VERSION = 1;
const MAX_APPROVERS = 20;
const MAX_DELAY_MS = 31 * 86_400_000;

/** `0s`, `90s`, `1h`, `2d` in milliseconds (0 allowed: a change then applies at its M-th signature). */
export function delayMs(text: string): number {
  return durationMs(text, 'delay', MAX_DELAY_MS, '31d');
}

/** The settings as given (`--required 2 --approvers 0xA,0xB,0xC --delay 1h`), checked: M within 1..approvers, addresses distinct. */
export function parseGovernanceSettings(input: { required: unknown; approvers: unknown; delay?: unknown }): GovernanceSettings {
  const { required, approvers, delay = '0s' } = input;
  if (!Array.isArray(approvers) || approvers.length === 0) throw invalidArgument('approvers: at least one address');
  if (approvers.length > MAX_APPROVERS) throw invalidArgument(`approvers: at most ${MAX_APPROVERS}`);
  const addresses = approvers.map((a, i) => parseAddress(typeof a === 'string' ? a.trim() : a, `approvers[${i}]`));
  const sorted = [...new Set(addresses)].sort();
  if (sorted.length !== addresses.length) throw invalidArgument('approvers: an address is given twice');
  if (typeof required !== 'number' || !Number.isInteger(required) || required < 1) throw invalidArgument('required: a whole number of at least 1');
  if (required > sorted.length) throw invalidArgument(`required: ${required} is more than the ${sorted.length} approver(s) given`);
  if (typeof delay !== 'string') throw invalidArgument('delay: a duration such as 1h');
  const ms = delayMs(delay);
  return { required, approvers: sorted, delay: ms === 0 ? '0s' : describeWindow(ms) };
}

/** Sorted keys, no whitespace, no undefined: one text per value, so one hash. */
export function canonicalStateJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalStateJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalStateJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The state's hash: keccak256 of its canonical JSON (UTF-8), 0x-prefixed lower-case hex. */
export function stateHash(state: GovernedState | string): string {
  const text = typeof state === 'string' ? state : canonicalStateJson(state);
  return `0x${keccak256(Buffer.from(text, 'utf8')).toString('hex')}`;
}

/** A stored state's text read back; anything but a state of this vault is refused (the chain check names it). */
export function readState(text: string, vaultId: string): GovernedState {
  const state = JSON.parse(text) as GovernedState;
  if (state === null || typeof state !== 'object' || state.version !== GOVERNED_STATE_VERSION) throw new Error('not a governed state of version 1');
  if (state.vault !== vaultId) throw new Error(`a state of vault ${JSON.stringify(state.vault)}`);
  const g = state.governance;
  if (!g || !Array.isArray(g.approvers) || !Number.isInteger(g.required) || g.required < 1 || g.required > g.approvers.length) throw new Error('governance settings out of range');
  if (!Number.isInteger(state.liftedFreezes) || state.liftedFreezes < 0) throw new Error('liftedFreezes is not a whole number');
  const listOfIds = (list: unknown, name: string) => {
    if (list === undefined) return;
    if (!Array.isArray(list) || list.some((e) => e === null || typeof e !== 'object' || typeof (e as { id?: unknown }).id !== 'string')) throw new Error(`${name} is not a list of entries with ids`);
  };
  listOfIds(state.apiKeys, 'apiKeys');
  listOfIds(state.webhooks, 'webhooks');
  listOfIds(state.exports, 'exports');
  if (state.exports?.some((e) => (e.kind !== 'wallet' && e.kind !== 'hd-seed') || typeof e.recipientKey !== 'string' || typeof e.recipient !== 'string')) throw new Error('exports: an entry without kind, recipientKey or recipient');
  if (state.apiKeys?.some((k) => !Array.isArray(k.roles))) throw new Error('apiKeys: an entry without roles');
  if (state.apiKeys?.some((k) => k.passkey !== undefined && !isGovernedPasskey(k.passkey))) throw new Error('apiKeys: a passkey without a base64url credentialId and publicKey');
  // Any text a row held is kept as it was (one that is no sha256 hex matches no secret: the key is locked, not opened).
  if (state.apiKeys?.some((k) => k.secretHash !== undefined && (typeof k.secretHash !== 'string' || k.secretHash.length > 256))) throw new Error('apiKeys: a secretHash that is not a text');
  if (state.webhooks?.some((w) => typeof w.url !== 'string' || !Array.isArray(w.events))) throw new Error('webhooks: an entry without url or events');
  return state;
}

const BASE64URL = /^[A-Za-z0-9_-]{1,2048}$/;
const isGovernedPasskey = (value: unknown): boolean => {
  const p = value as { credentialId?: unknown; publicKey?: unknown } | null;
  return typeof p === 'object' && p !== null && typeof p.credentialId === 'string' && BASE64URL.test(p.credentialId) && typeof p.publicKey === 'string' && BASE64URL.test(p.publicKey);
};

/** What a change does, readable: rules and limits added, removed or changed (by id), approver set and quorum. */
export interface StateDiff {
  readonly policy: {
    readonly added: string[];
    readonly removed: string[];
    readonly changed: string[];
    readonly replaced?: 'set' | 'removed';
    /** What each entry of `changed` changed, field by field (absent when nothing changed). */
    readonly fields?: FieldChange[];
  };
  readonly governance: { readonly approversAdded: string[]; readonly approversRemoved: string[]; readonly required?: { from: number; to: number }; readonly delay?: { from: string; to: string } };
  readonly liftedFreezes?: { from: number; to: number };
  /** Keys (by id) added, removed or changed; present when either state governs keys (`governed` false: the field is new). */
  readonly apiKeys?: EntriesDiff;
  /** Webhook endpoints (by id) added, removed or changed; present when either state governs them. */
  readonly webhooks?: EntriesDiff;
  /** Key exports (by id) allowed; present when either state lists exports. */
  readonly exports?: EntriesDiff;
}

/**
 * One field of a changed rule or limit (`entry` as `changed` names it: `rule usdc-small-transfers`), or of
 * the document's other settings (`entry` `document settings`: `contractNames`, `tokens`, …), with its
 * value before and after; null where the field was absent.
 */
export interface FieldChange {
  readonly entry: string;
  readonly field: string;
  readonly from: unknown;
  readonly to: unknown;
}

/** The top-level fields of `before` and `after` that differ, in the order they first appear. */
function fieldChanges(entry: string, before: object, after: object): FieldChange[] {
  const was = before as Record<string, unknown>;
  const now = after as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(was), ...Object.keys(now)])];
  return keys
    .filter((k) => canonicalStateJson(was[k] ?? null) !== canonicalStateJson(now[k] ?? null))
    .map((field) => ({ entry, field, from: was[field] ?? null, to: now[field] ?? null }));
}

export interface EntriesDiff {
  readonly added: string[];
  readonly removed: string[];
  readonly changed: string[];
  /** Set when the state before did not govern these (the change starts governing them). */
  readonly nowGoverned?: true;
}

function diffEntries(before: readonly { id: string }[] | undefined, after: readonly { id: string }[] | undefined): EntriesDiff | undefined {
  if (before === undefined && after === undefined) return undefined;
  const was = new Map((before ?? []).map((e) => [e.id, canonicalStateJson(e)]));
  const now = new Map((after ?? []).map((e) => [e.id, canonicalStateJson(e)]));
  return {
    added: [...now.keys()].filter((k) => !was.has(k)),
    removed: [...was.keys()].filter((k) => !now.has(k)),
    changed: [...now.keys()].filter((k) => was.has(k) && was.get(k) !== now.get(k)),
    ...(before === undefined ? { nowGoverned: true as const } : {}),
  };
}

export function diffStates(before: GovernedState, after: GovernedState): StateDiff {
  const entries = (p: PolicyDocument | null) =>
    new Map<string, object>([...(p?.rules ?? []).map((r) => [`rule ${r.id}`, r] as const), ...(p?.limits ?? []).map((l) => [`limit ${l.id}`, l] as const)]);
  const was = entries(before.policy);
  const now = entries(after.policy);
  const added = [...now.keys()].filter((k) => !was.has(k));
  const removed = [...was.keys()].filter((k) => !now.has(k));
  const changed = [...now.keys()].filter((k) => was.has(k) && canonicalStateJson(was.get(k)) !== canonicalStateJson(now.get(k)));
  const fields = changed.flatMap((k) => fieldChanges(k, was.get(k)!, now.get(k)!));
  const replaced = before.policy === null && after.policy !== null ? 'set' : before.policy !== null && after.policy === null ? 'removed' : undefined;
  // Anything else of the document (uniqs, trustRpcUniq, ...) that differs: named as a change of the document.
  const rest = (p: PolicyDocument | null) => (p === null ? 'null' : canonicalStateJson({ ...p, rules: [], limits: [] }));
  if (replaced === undefined && rest(before.policy) !== rest(after.policy)) {
    changed.push('document settings');
    const settings = (p: PolicyDocument) => {
      const { rules: _rules, limits: _limits, ...others } = p;
      return others;
    };
    fields.push(...fieldChanges('document settings', settings(before.policy!), settings(after.policy!)));
  }
  const b = before.governance;
  const a = after.governance;
  return {
    policy: { added, removed, changed, ...(replaced ? { replaced } : {}), ...(fields.length > 0 ? { fields } : {}) },
    governance: {
      approversAdded: a.approvers.filter((x) => !b.approvers.includes(x)),
      approversRemoved: b.approvers.filter((x) => !a.approvers.includes(x)),
      ...(a.required !== b.required ? { required: { from: b.required, to: a.required } } : {}),
      ...(a.delay !== b.delay ? { delay: { from: b.delay, to: a.delay } } : {}),
    },
    ...(after.liftedFreezes !== before.liftedFreezes ? { liftedFreezes: { from: before.liftedFreezes, to: after.liftedFreezes } } : {}),
    ...optional('apiKeys', diffEntries(before.apiKeys, after.apiKeys)),
    ...optional('webhooks', diffEntries(before.webhooks, after.webhooks)),
    ...optional('exports', diffEntries(before.exports, after.exports)),
  };
}

const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } => (value === undefined ? {} : ({ [key]: value } as { [P in K]: V }));

/** Entries by id, in the one order a state keeps them. */
export const byId = (a: { readonly id: string }, b: { readonly id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
