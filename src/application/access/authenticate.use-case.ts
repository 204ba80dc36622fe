import { addressInCidrs } from '../../domain/api-key-access.js';
import { expiredRefusal, rotatedRefusal } from '../../domain/api-key-lifecycle.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import { escapeControlCharacters } from '../../domain/unicode.js';
import { isWellFormedVaultId } from '../../domain/vault.js';
import type { Clock } from '../../ports/clock.port.js';
import type { ApiKeyStore } from '../../ports/api-key-store.port.js';
import type { GovernedApiKey } from '../../domain/governance.js';
import { parseApiKey, secretMatches } from './api-key-format.js';
import type { Principal } from './principal.js';
import type { RefusalReason, RefusedAuthObserver } from './refused-auth-summary.js';

export type { Principal };

/**
 * The API keys a governed vault's verified state in force lists (docs/governance.md, "API keys"), or null
 * when its keys are not governed (the vault is not governed, or its state predates governed keys). Read
 * from the policy cache: a map lookup per request, a load at most every few seconds per vault.
 */
export type GovernedKeys = (vaultId: string) => Promise<readonly GovernedApiKey[] | null>;

/**
 * Why the caller's transport carried no API key it could read (the HTTP adapter's `Authorization`
 * parse names the reason and words the message); the refusal is counted like any other.
 */
export interface UnreadableCredential {
  readonly reason: Extract<RefusalReason, 'missing_header' | 'malformed_header' | 'not_bearer'>;
  readonly message: string;
}

/**
 * Checks an API key against the vault named by the caller. Unknown keys, revoked keys, keys of another
 * vault and unknown vaults all give the same answer, so the response is no oracle; the observer (the
 * audit summary and the metrics, which only operators read) learns the precise reason.
 */
export class Authenticate {
  constructor(
    private readonly repository: ApiKeyStore,
    private readonly clock: Clock,
    private readonly refusals: RefusedAuthObserver,
    /** Absent: no vault's keys are governed (every key row is taken as it is). */
    private readonly governedKeys?: GovernedKeys,
  ) {}

  /**
   * `apiKey`: the key presented (undefined: none), or why none could be read. `source` is the client
   * address the caller resolved: for the summary of refusals, and checked against a key bound to networks
   * (`unknown`, the default, is inside none of them).
   */
  async execute(apiKey: string | UnreadableCredential | undefined, vaultId: string, source = 'unknown'): Promise<Principal> {
    const refuse = (reason: RefusalReason, message: string, apiKeyId: string | null = null): never => {
      // Told, not awaited: a refusal costs no write of its own (the summary is flushed periodically).
      this.refusals.refused({ source, reason, vaultId, apiKeyId });
      throw new DomainError(ErrorCode.UNAUTHENTICATED, message);
    };
    if (apiKey === undefined) return refuse('missing_header', 'missing API key');
    if (typeof apiKey !== 'string') return refuse(apiKey.reason, apiKey.message);
    const parsed = parseApiKey(apiKey);
    if (!parsed) return refuse('malformed_key', 'malformed API key');
    const refused = 'invalid API key for this vault';
    // Path text that cannot be a vault id is an unknown vault, answered alike, before any database is asked.
    if (!isWellFormedVaultId(vaultId)) return refuse('malformed_vault', refused, parsed.id);
    const record = await this.repository.findApiKey(parsed.id).catch(unnamedDatabaseFailure);
    if (record === null) return refuse('unknown_key', refused, parsed.id);
    // The secret is checked before anything else about the record, so only its holder learns more below.
    if (!secretMatches(parsed.secret, record.secretHash)) return refuse('wrong_secret', refused, parsed.id);
    if (record.revoked !== null && record.revoked.getTime() <= this.clock.now().getTime()) {
      return refuse('revoked_key', refused, parsed.id);
    }
    if (record.vaultId !== vaultId) return refuse('other_vault', refused, parsed.id);
    // Its lifecycle, named to the holder alone (the secret matched): an expired key says when,
    // a rotated one that it was replaced, so the holder knows to use the new key rather than call support.
    const now = this.clock.now();
    const ended = expiredRefusal(record, now) ?? (record.replacedBy == null ? null : rotatedRefusal(record, now, await this.successorFirstUse(record.replacedBy)));
    if (ended !== null) return refuse(ended.reason, ended.message, parsed.id);
    // On a vault whose signed state governs its keys, the row only proves its revocation (and a first check
    // of the secret): a key the state does not list is unknown, a listed key's powers are the state's, not
    // the row's, and where the state lists the secret's hash the secret must match that one too, so a
    // hash a database writer puts in the row opens nothing.
    const governed = this.governedKeys ? await this.governedKeys(vaultId) : null;
    const powers = governed === null ? record : governed.find((k) => k.id === record.id);
    if (powers === undefined) return refuse('ungoverned_key', refused, parsed.id);
    if (governed !== null && powers.secretHash !== undefined && !secretMatches(parsed.secret, powers.secretHash)) {
      return refuse('ungoverned_secret', refused, parsed.id);
    }
    // Checked last, so only the key's holder learns of its networks; summarised with the other refusals.
    if (record.allowCidrs !== null && !addressInCidrs(source, record.allowCidrs)) {
      this.refusals.refused({ source, reason: 'foreign_network', vaultId, apiKeyId: parsed.id });
      throw new DomainError(ErrorCode.FORBIDDEN_NETWORK, `this API key may not be used from ${escapeControlCharacters(source)}`);
    }
    // A rotation's new key: its first use ends the old key's overlap, on every instance (the row says so).
    if (record.replaces != null && record.firstUsed == null) await this.repository.markFirstUsed(record.id, now).catch(unnamedDatabaseFailure);
    return {
      apiKeyId: record.id,
      vaultId,
      roles: powers.roles,
      ...(powers.group ? { group: powers.group } : {}),
      ...(powers.approverAddress ? { approverAddress: powers.approverAddress } : {}),
    };
  }

  /** When a rotated key's successor was first used (null: not yet, or its row is gone). */
  private async successorFirstUse(id: string): Promise<Date | null> {
    const successor = await this.repository.findApiKey(id).catch(unnamedDatabaseFailure);
    return successor?.firstUsed ?? null;
  }
}

/**
 * Before authentication the caller may be anyone: a database failure is answered as `database
 * unavailable`, without the host and database name its message carries (those go to the log, as the
 * cause). Failures after authentication keep naming the database for the key's holder.
 */
function unnamedDatabaseFailure(error: unknown): never {
  if (error instanceof DomainError && error.code === ErrorCode.DATABASE_UNAVAILABLE) {
    throw new DomainError(ErrorCode.DATABASE_UNAVAILABLE, 'database unavailable', { cause: error });
  }
  throw error;
}
