import { DomainError, ErrorCode } from '../domain/errors.js';
import type { AuditLog } from '../ports/audit-log.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { parseApiKey, secretMatches } from './api-key-format.js';
import { ANONYMOUS, apiKeyActor, audit } from './audit-actor.js';

export interface Principal {
  readonly apiKeyId: string;
  readonly vaultId: string;
}

/**
 * Checks `Authorization: Bearer <key>` against the vault named in the path. Unknown keys, revoked keys,
 * keys of another vault and unknown vaults all give the same answer, so the response is no oracle; the
 * audit trail, which only operators read, records the precise reason.
 */
export class Authenticate {
  constructor(
    private readonly repository: WalletRepository,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
  ) {}

  async execute(authorization: string | undefined, vaultId: string): Promise<Principal> {
    if (authorization === undefined || authorization.trim() === '') {
      return this.refuse(vaultId, null, 'missing Authorization header (expected "Bearer <API key>")');
    }
    const match = /^(\S+)\s+(\S+)$/.exec(authorization.trim());
    if (!match) return this.refuse(vaultId, null, 'malformed Authorization header (expected "Bearer <API key>")');
    if (match[1]!.toLowerCase() !== 'bearer') return this.refuse(vaultId, null, 'Authorization must use the Bearer scheme');
    const parsed = parseApiKey(match[2]!);
    if (!parsed) return this.refuse(vaultId, null, 'malformed API key');
    const record = await this.repository.findApiKey(parsed.id);
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
