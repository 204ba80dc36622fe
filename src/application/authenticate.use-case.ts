import { DomainError, ErrorCode } from '../domain/errors.js';
import { isWellFormedVaultId } from '../domain/vault.js';
import type { Clock } from '../ports/clock.port.js';
import type { ApiKeyStore } from '../ports/api-key-store.port.js';
import { parseApiKey, secretMatches } from './api-key-format.js';
import type { Principal } from './principal.js';
import type { RefusalReason, RefusedAuthObserver } from './refused-auth-summary.js';

export type { Principal };

/**
 * Checks `Authorization: Bearer <key>` against the vault named in the path. Unknown keys, revoked keys,
 * keys of another vault and unknown vaults all give the same answer, so the response is no oracle; the
 * observer (the audit summary and the metrics, which only operators read) learns the precise reason.
 */
export class Authenticate {
  constructor(
    private readonly repository: ApiKeyStore,
    private readonly clock: Clock,
    private readonly refusals: RefusedAuthObserver,
  ) {}

  /** `source` is the client address the caller resolved, for the summary of refusals. */
  async execute(authorization: string | undefined, vaultId: string, source = 'unknown'): Promise<Principal> {
    const refuse = (reason: RefusalReason, message: string, apiKeyId: string | null = null): never => {
      // Told, not awaited: a refusal costs no write of its own (the summary is flushed periodically).
      this.refusals.refused({ source, reason, vaultId, apiKeyId });
      throw new DomainError(ErrorCode.UNAUTHENTICATED, message);
    };
    if (authorization === undefined || authorization.trim() === '') {
      return refuse('missing_header', 'missing Authorization header (expected "Bearer <API key>")');
    }
    const match = /^(\S+)\s+(\S+)$/.exec(authorization.trim());
    if (!match) return refuse('malformed_header', 'malformed Authorization header (expected "Bearer <API key>")');
    if (match[1]!.toLowerCase() !== 'bearer') return refuse('not_bearer', 'Authorization must use the Bearer scheme');
    const parsed = parseApiKey(match[2]!);
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
    return { apiKeyId: record.id, vaultId };
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
