import { parseAddress } from '../../domain/address.js';
import { parseApproverGroup } from '../../domain/approval-rules.js';
import { invalidArgument, DomainError, ErrorCode } from '../../domain/errors.js';
import { parseApiKeyExpiry, parseApiKeyLabel, parseOverlap } from '../../domain/api-key-lifecycle.js';
import { checkApproverSeparation, DEFAULT_ROLES, parseRoles, type ApiKeyRole, type Cidr } from '../../domain/api-key-access.js';
import type { ApiKeyRecord, Vault } from '../../domain/vault.js';
import { showValue } from '../../domain/show-value.js';
import { normalizeWalletName } from '../../domain/wallet.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { ApiKeyStore } from '../../ports/api-key-store.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import { generateApiKey } from '../access/api-key-format.js';
import { audit, auditEvent, OPERATOR } from '../audit/audit-actor.js';
import { requireVault } from '../wallets/wallet-lookup.js';
import { governedApiKey, withEntry, withoutEntry, type GovernedApiKey } from '../../domain/governance.js';
import type { EntriesProposer, MadeProposal } from '../governance/governance.use-case.js';

/** A key's label and expiry as its audit records carry them (only those it has). */
const lifecycleDetails = (key: ApiKeyRecord) => ({
  ...(key.label == null ? {} : { label: key.label }),
  ...(key.expires == null ? {} : { expires: key.expires.toISOString() }),
});

/** The account vaults go to when none is named: a self-hosted deployment usually has just one. */
export const DEFAULT_ACCOUNT = 'default';
const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** An approver's credential as stored: EIP-55 (a mixed-case address with a bad checksum is a typo, refused). */
const approverAddressOf = (text: string): string => parseAddress(text, 'approver-address');

/** What an operator should know of a change that is made all the same (printed on stderr by the CLI). */
export interface Warned {
  readonly warnings?: readonly string[];
}

/**
 * Operator actions (the CLI, the admin API): vaults and their API keys, each recorded in the audit trail
 * under `actor`: a named operator's `operator:<name>`, or `operator` (the local CLI, break-glass) by default.
 */
export class ManageVaults {
  constructor(
    private readonly repository: VaultStore & ApiKeyStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly auditLog: AuditLog,
    /** A governed vault's key changes become proposals; absent: keys are only rows. */
    private readonly governance?: EntriesProposer,
  ) {}

  /** A new vault (a tenant: its wallets, API keys and policy) under `account` (default: `default`). */
  async create(input: { name: string; account?: string }, actor: string = OPERATOR): Promise<Vault> {
    const name = normalizeWalletName(input.name);
    const accountId = input.account ?? DEFAULT_ACCOUNT;
    if (!IDENTIFIER.test(accountId)) {
      throw invalidArgument('account: must be 1 to 100 letters, digits, ".", "_" or "-"');
    }
    const now = this.clock.now();
    await this.repository.ensureAccount(accountId, now);
    const vault: Vault = { id: this.ids.next(), accountId, name, created: now };
    await this.repository.insertVault(vault);
    await audit(this.auditLog, 'vault.created', now, actor, vault.id, vault.id, { name, account: accountId });
    return vault;
  }

  list(): Promise<Vault[]> {
    return this.repository.listVaults();
  }

  /**
   * Returns the key itself exactly once; only its hash is stored. Without `roles` the key holds every
   * role but approver (DEFAULT_ROLES); approver with signer or admin needs `allowSignerApprover`;
   * without `allowCidrs` it may call from anywhere. On a vault whose signed state governs its keys the row
   * is written and a proposal adding the key made: the key authenticates once that proposal is in force.
   */
  async createApiKey(
    vaultId: string,
    access: { roles?: readonly ApiKeyRole[]; allowCidrs?: readonly Cidr[]; group?: string; allowSignerApprover?: boolean; approverAddress?: string; label?: string; expires?: string } = {},
    actor: string = OPERATOR,
  ): Promise<{ apiKey: string; record: ApiKeyRecord } & MadeProposal & Warned> {
    // Checked first, with the clock the expiry counts from: a bad label or expiry writes nothing.
    const lifecycle = this.lifecycleOf(access.label, access.expires);
    const roles = access.roles === undefined ? DEFAULT_ROLES : parseRoles(access.roles.join(','));
    checkApproverSeparation(roles, access.allowSignerApprover === true);
    await requireVault(this.repository, vaultId);
    if (access.allowCidrs !== undefined && access.allowCidrs.length === 0) throw invalidArgument('allow-cidrs: at least one address or CIDR range');
    const allowCidrs = access.allowCidrs ?? null;
    // A group says whose votes an approval rule counts: meaningless for a key that cannot vote.
    const group = access.group === undefined ? null : parseApproverGroup(access.group);
    if (group !== null && !roles.includes('approver')) throw invalidArgument('group: only a key with the approver role votes; add approver to --roles');
    const approverAddress = access.approverAddress === undefined ? null : approverAddressOf(access.approverAddress);
    if (approverAddress !== null && !roles.includes('approver')) throw invalidArgument('approver-address: only a key with the approver role votes; add approver to --roles');
    // Asked before the row is written, so a vault whose governance does not verify gets no row either.
    const governed = await this.governedKeys(vaultId);
    const warned = approverAddress === null ? {} : await this.sharedAddress(vaultId, approverAddress, null, governed);
    const { id, apiKey, secretHash } = generateApiKey();
    const record: ApiKeyRecord = {
      id, vaultId, secretHash, created: this.clock.now(), revoked: null, roles, allowCidrs,
      ...(group === null ? {} : { group }),
      ...(approverAddress === null ? {} : { approverAddress }),
      ...lifecycle,
    };
    await this.repository.insertApiKey(record);
    await audit(this.auditLog, 'api-key.created', record.created, actor, vaultId, id, {
      roles: roles.join(','),
      allowCidrs: allowCidrs === null ? null : allowCidrs.map((c) => c.text).join(','),
      ...(group === null ? {} : { group }),
      ...(approverAddress === null ? {} : { approverAddress }),
      ...lifecycleDetails(record),
    });
    if (governed === null) return { apiKey, record, ...warned };
    return { apiKey, record, ...warned, ...(await this.propose(vaultId, (keys) => withEntry(keys, governedApiKey(record)), actor)) };
  }

  /**
   * A warning when another unrevoked approver key of the vault (by its row, or as the signed state lists it)
   * already votes as `address`. Warned, not refused: a quorum counts an approver once, whichever of its keys
   * votes, so the second key adds no vote; and replacing an approver's key makes the new one before the old
   * one is revoked.
   */
  private async sharedAddress(vaultId: string, address: string, keyId: string | null, governed: readonly GovernedApiKey[] | null): Promise<Warned> {
    const same = (a: string | null | undefined) => a !== null && a !== undefined && a.toLowerCase() === address.toLowerCase();
    const rows = (await this.repository.listApiKeys(vaultId)).filter((k) => k.revoked === null && k.roles.includes('approver') && same(k.approverAddress));
    const listed = (governed ?? []).filter((k) => k.roles.includes('approver') && same(k.approverAddress));
    const others = [...new Set([...rows, ...listed].map((k) => k.id))].filter((id) => id !== keyId).sort();
    if (others.length === 0) return {};
    return {
      warnings: [
        `approver-address: ${others.length === 1 ? `api key ${others[0]} of this vault already votes` : `api keys ${others.join(', ')} of this vault already vote`} as ${address}; a quorum counts each approver once, ` +
          'whichever of its keys votes, so this key adds no approval of its own (revoke the older key once this one is in use)',
      ],
    };
  }

  /**
   * Attaches a credential to an approver key of the vault (or replaces it): from then on its votes count
   * only signed by `address`, also the votes it cast before, which the release verifies again.
   * Audited (`api-key.credential-set`) in the same transaction. On a vault whose signed state governs its
   * keys the row is left as it is and a proposal changing the state's credential of the key is made: the
   * state's is the one its votes are checked with.
   */
  async setApproverAddress(vaultId: string, keyId: string, address: string): Promise<ApiKeyRecord & MadeProposal & Warned> {
    const approverAddress = approverAddressOf(address);
    await requireVault(this.repository, vaultId);
    const row = await this.repository.findApiKey(keyId);
    if (row === null || row.vaultId !== vaultId) throw invalidArgument(`key: api key ${showValue(keyId)} is not a key of vault ${vaultId}`);
    if (row.revoked !== null) throw invalidArgument(`key: api key ${keyId} is revoked`);
    const governed = await this.governedKeys(vaultId);
    const listed = governed?.find((k) => k.id === keyId);
    if (governed !== null && listed === undefined) throw invalidArgument(`key: api key ${keyId} is not in vault ${vaultId}'s signed state (docs/governance.md)`);
    // What the key may do: the signed state's, when it governs the keys.
    const key = listed === undefined ? row : { ...row, roles: listed.roles, group: listed.group, approverAddress: listed.approverAddress };
    if (!key.roles.includes('approver')) throw invalidArgument(`key: api key ${keyId} does not hold the approver role (roles ${key.roles.join(',')}); only approver keys vote`);
    const warned = await this.sharedAddress(vaultId, approverAddress, keyId, governed);
    // The state's entry with the new address, all else as listed: its passkey (the address then judges the
    // key's votes, docs/console.md) and its secret hash (never the row's, which a database writer may have replaced).
    if (listed !== undefined) return { ...key, approverAddress, ...warned, ...(await this.propose(vaultId, (keys) => withEntry(keys, { ...listed, approverAddress }))) };
    const now = this.clock.now();
    const recorded = auditEvent('api-key.credential-set', now, OPERATOR, vaultId, keyId, { approverAddress, previous: key.approverAddress ?? null });
    if (!(await this.repository.setApproverAddress(keyId, approverAddress, recorded))) throw invalidArgument(`key: api key ${keyId} does not exist`);
    return { ...key, approverAddress, ...warned };
  }

  /**
   * Replaces the roles of key `keyId` of vault `vaultId`, with the rules of creation: at least one known
   * role, and approver with signer or admin only given `allowSignerApprover`. A key that loses approver keeps
   * its group and credential, unused until it holds approver again. Audited `api-key.roles-changed` (`roles`,
   * `previous`) in the transaction that writes the row; the key's next request is judged by the new roles
   * (each instance's key cache is told of the change). The roles it already holds change nothing and record
   * nothing. On a vault whose signed state governs its keys the row is left as it is and a proposal
   * changing the state's entry is made: the key keeps its listed roles until that proposal is in force
   * (its approvers' quorum, then the delay).
   */
  async setApiKeyRoles(
    vaultId: string,
    keyId: string,
    roles: readonly string[],
    actor: string = OPERATOR,
    options: { allowSignerApprover?: boolean } = {},
  ): Promise<ApiKeyRecord & { previousRoles: readonly ApiKeyRole[] } & MadeProposal> {
    if (!Array.isArray(roles)) throw invalidArgument('roles: an array of roles');
    const wanted = parseRoles(roles.join(','));
    checkApproverSeparation(wanted, options.allowSignerApprover === true);
    await requireVault(this.repository, vaultId);
    const row = await this.repository.findApiKey(keyId);
    if (row === null || row.vaultId !== vaultId) throw invalidArgument(`id: api key ${showValue(keyId)} is not a key of vault ${vaultId}`);
    if (row.revoked !== null) throw invalidArgument(`id: api key ${keyId} is revoked`);
    const governed = await this.governedKeys(vaultId);
    const listed = governed?.find((k) => k.id === keyId);
    if (governed !== null && listed === undefined) throw invalidArgument(`id: api key ${keyId} is not in vault ${vaultId}'s signed state (docs/governance.md)`);
    // What the key may do now: the signed state's, when it governs the keys.
    const previous = listed === undefined ? row.roles : listed.roles;
    const same = previous.length === wanted.length && previous.every((r) => wanted.includes(r));
    if (same) return { ...row, roles: previous, previousRoles: previous };
    // The state's entry with the new roles, all else as listed (its secret hash, never the row's).
    if (listed !== undefined) {
      return { ...row, roles: wanted, previousRoles: previous, ...(await this.propose(vaultId, (keys) => withEntry(keys, { ...listed, roles: wanted }), actor)) };
    }
    const recorded = auditEvent('api-key.roles-changed', this.clock.now(), actor, vaultId, keyId, { roles: wanted.join(','), previous: previous.join(',') });
    if (!(await this.repository.setApiKeyRoles(keyId, wanted, recorded))) throw invalidArgument(`id: api key ${keyId} was revoked meanwhile`);
    return { ...row, roles: wanted, previousRoles: previous };
  }

  /**
   * Rotates key `id` of vault `vaultId`: a new key with the old one's roles, group, credential,
   * networks, label and expiry, shown once, while the old one keeps working until `overlap` (`1h`) has passed
   * or the new one is first used, whichever comes first. Audited `api-key.rotated` (subject the old key) in
   * the transaction that writes both rows. Refused on a vault whose signed state governs its keys: there the
   * state lists each key with its secret's hash, so a new key authenticates only once a quorum signed it, and
   * an overlap counted from now could end before that (locking the holder out); rotate there with
   * `api-keys create` (a proposal) and `api-keys revoke` once the new key is in force (docs/governance.md).
   */
  async rotateApiKey(vaultId: string, id: string, overlap: string, actor: string = OPERATOR): Promise<{ apiKey: string; record: ApiKeyRecord; replaced: ApiKeyRecord }> {
    const overlapMs = parseOverlap(overlap);
    await requireVault(this.repository, vaultId);
    const old = await this.repository.findApiKey(id);
    if (old === null || old.vaultId !== vaultId) throw invalidArgument(`id: api key ${showValue(id)} is not a key of vault ${vaultId}`);
    if (old.revoked !== null) throw invalidArgument(`id: api key ${id} is revoked; create a new key instead`);
    if (old.replacedBy != null) throw invalidArgument(`id: api key ${id} was rotated already (replaced by ${old.replacedBy}); rotate that key instead`);
    const now = this.clock.now();
    if (old.expires != null && old.expires.getTime() <= now.getTime()) throw invalidArgument(`id: api key ${id} expired at ${old.expires.toISOString()}; create a new key instead`);
    if ((await this.governedKeys(vaultId)) !== null) {
      throw new DomainError(
        ErrorCode.INVALID_ARGUMENT,
        `id: vault ${vaultId} is governed: its keys change only by proposals its approvers sign, and a rotation's overlap cannot wait for their quorum; ` +
          'create the new key with api-keys create (a proposal), then revoke this one with api-keys revoke once the new key is in force (docs/governance.md, "API keys and webhooks")',
      );
    }
    const { id: newId, apiKey, secretHash } = generateApiKey();
    const { id: _old, created: _c, revoked: _r, secretHash: _h, replacedBy: _b, overlapEnds: _e, firstUsed: _f, replaces: _p, ...kept } = old;
    const record: ApiKeyRecord = { ...kept, id: newId, secretHash, created: now, revoked: null, replaces: id };
    const overlapEnds = new Date(now.getTime() + overlapMs);
    const recorded = auditEvent('api-key.rotated', now, actor, vaultId, id, { replacedBy: newId, overlapEnds: overlapEnds.toISOString(), ...lifecycleDetails(record) });
    if (!(await this.repository.rotateApiKey(id, record, overlapEnds, recorded))) throw invalidArgument(`id: api key ${id} was revoked or rotated meanwhile`);
    return { apiKey, record, replaced: { ...old, replacedBy: newId, overlapEnds } };
  }

  /** The label and expiry of a new key, checked (absent fields: none). */
  private lifecycleOf(label: string | undefined, expires: string | undefined): Pick<ApiKeyRecord, 'label' | 'expires'> {
    return {
      ...(label === undefined ? {} : { label: parseApiKeyLabel(label) }),
      ...(expires === undefined ? {} : { expires: parseApiKeyExpiry(expires, this.clock.now()) }),
    };
  }

  async listApiKeys(vaultId: string): Promise<ApiKeyRecord[]> {
    await requireVault(this.repository, vaultId);
    return this.repository.listApiKeys(vaultId);
  }

  /**
   * Revoking a revoked key keeps its first revocation time and records nothing new. Taking power away
   * needs no quorum: the row is revoked at once (and refused from then on, whatever the state lists); on
   * a vault whose signed state lists the key, a proposal removing it from the state is made as well.
   */
  async revokeApiKey(id: string, actor: string = OPERATOR, vaultId?: string): Promise<MadeProposal> {
    const before = await this.repository.findApiKey(id);
    // With `vaultId` (the admin API, whose operator may be scoped to it): a key of another vault is not found.
    if (before && vaultId !== undefined && before.vaultId !== vaultId) throw invalidArgument(`id: api key ${showValue(id)} is not a key of vault ${vaultId}`);
    const now = this.clock.now();
    if (!before || !(await this.repository.revokeApiKey(id, now))) {
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, `api key ${id} does not exist`);
    }
    if (before.revoked === null) await audit(this.auditLog, 'api-key.revoked', now, actor, before.vaultId, id);
    const governed = await this.governedKeys(before.vaultId);
    if (governed === null || !governed.some((k) => k.id === id)) return {};
    return this.propose(before.vaultId, (keys) => withoutEntry(keys, id), actor);
  }

  private async governedKeys(vaultId: string) {
    return this.governance === undefined ? null : this.governance.governedEntries(vaultId, 'apiKeys');
  }

  private async propose(vaultId: string, edit: (keys: readonly GovernedApiKey[]) => GovernedApiKey[], actor: string = OPERATOR): Promise<MadeProposal> {
    const proposal = await this.governance!.proposeEntries(vaultId, 'apiKeys', edit, actor);
    return proposal === null ? {} : { proposal };
  }
}
