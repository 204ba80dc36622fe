import { DomainError, ErrorCode } from '../domain/errors.js';
import type { ApiKeyRecord } from '../domain/vault.js';
import type { AuditLog } from '../ports/audit-log.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { parseApiKey, secretMatches } from './api-key-format.js';
import { ANONYMOUS, apiKeyActor, audit } from './audit-actor.js';
import { TtlCache } from './ttl-cache.js';

/**
 * How long a found API key record is reused. A revocation made through another process (the CLI,
 * another instance) takes effect within this; one made through this process's ManageVaults at once.
 */
export const API_KEY_CACHE_TTL_MS = 5_000;
const MAX_KEYS = 10_000;

export interface Principal {
  readonly apiKeyId: string;
  readonly vaultId: string;
}

/**
 * Checks `Authorization: Bearer <key>` against the vault named in the path. Unknown keys, revoked keys,
 * keys of another vault and unknown vaults all give the same answer, so the response is no oracle; the
 * audit trail, which only operators read, records the precise reason.
 *
 * Found key records are cached by id for a few seconds (every request reads one, sign included); the
 * secret is still hashed and compared in constant time, and `revoked` checked against the clock, on
 * every request. Unknown ids are never cached, so a key created elsewhere works at once.
 */
export class Authenticate {
  private readonly records: TtlCache<string, ApiKeyRecord>;

  constructor(
    private readonly repository: WalletRepository,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
    ttlMs = API_KEY_CACHE_TTL_MS,
  ) {
    this.records = new TtlCache(ttlMs, MAX_KEYS);
  }

  /** Drops the cached record of a key changed through this process (revoked), so the change applies at once. */
  invalidate(apiKeyId: string): void {
    this.records.delete(apiKeyId);
  }

  async execute(authorization: string | undefined, vaultId: string): Promise<Principal> {
    if (authorization === undefined || authorization.trim() === '') {
      return this.refuse(vaultId, null, 'missing Authorization header (expected "Bearer <API key>")');
    }
    const match = /^(\S+)\s+(\S+)$/.exec(authorization.trim());
    if (!match) return this.refuse(vaultId, null, 'malformed Authorization header (expected "Bearer <API key>")');
    if (match[1]!.toLowerCase() !== 'bearer') return this.refuse(vaultId, null, 'Authorization must use the Bearer scheme');
    const parsed = parseApiKey(match[2]!);
    if (!parsed) return this.refuse(vaultId, null, 'malformed API key');
    const record = await this.findRecord(parsed.id);
    const refused = 'invalid API key for this vault';
    if (record === null) return this.refuse(vaultId, parsed.id, refused, 'unknown API key');
    // The secret is checked before anything else about the record, so only its holder learns more below.
    if (!secretMatches(parsed.secret, record.secretHash)) return this.refuse(vaultId, parsed.id, refused, 'wrong secret');
    if (record.revoked !== null && record.revoked.getTime() <= this.clock.now().getTime()) {
      return this.refuse(vaultId, parsed.id, refused, 'revoked API key');
    }
    if (record.vaultId !== vaultId) {
      return this.refuse(vaultId, parsed.id, refused, `API key of vault ${record.vaultId}`);
    }
    return { apiKeyId: record.id, vaultId };
  }

  private async findRecord(id: string): Promise<ApiKeyRecord | null> {
    const now = this.clock.now().getTime();
    const hit = this.records.get(id, now);
    if (hit) return hit.value;
    const record = await this.repository.findApiKey(id);
    if (record !== null) this.records.set(id, record, now);
    return record;
  }

  /**
   * Records the refusal, then throws. The presented key is named by its id when it parsed; its value is
   * never recorded. The path's vault is recorded only when it exists, so arbitrary path text never
   * reaches the trail.
   */
  private async refuse(vaultId: string, apiKeyId: string | null, message: string, reason = message): Promise<never> {
    const vault = await this.repository.findVault(vaultId);
    await audit(
      this.auditLog,
      'auth.refused',
      this.clock.now(),
      apiKeyId === null ? ANONYMOUS : apiKeyActor(apiKeyId),
      vault ? vault.id : null,
      null,
      vault ? { reason } : { reason, vault: 'unknown' },
    );
    throw new DomainError(ErrorCode.UNAUTHENTICATED, message);
  }
}
