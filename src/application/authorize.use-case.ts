import type { ApiKeyRole } from '../domain/api-key-access.js';
import { DomainError, ErrorCode } from '../domain/errors.js';
import type { AuditLog } from '../ports/audit-log.port.js';
import type { Clock } from '../ports/clock.port.js';
import { actorOf, audit } from './audit-actor.js';
import type { Principal } from './principal.js';

/**
 * Whether an authenticated caller's key holds the role an operation needs. The roles come with the
 * Principal (Authenticate read them from the key's record), so this is the application's rule, not a
 * transport's: the HTTP pipeline asks it for every vault route (each route declares its role), and an
 * embedding application can ask it before calling a use case on behalf of a key.
 */
export class Authorize {
  constructor(
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
  ) {}

  /**
   * Resolves when the key holds `role`; otherwise records an `auth.refused` event naming the key, the
   * role and `operation` (a route or use case name), then rejects with ROLE_REQUIRED. The caller is
   * authenticated, so the refusal is recorded one by one (not summarised as anonymous refusals are).
   */
  async execute(principal: Principal, role: ApiKeyRole, operation: string): Promise<void> {
    if (principal.roles.includes(role)) return;
    const held = principal.roles.join(',');
    await audit(this.auditLog, 'auth.refused', this.clock.now(), actorOf(principal), principal.vaultId, principal.apiKeyId, {
      reason: `missing role ${role}`,
      operation,
      roles: held,
    });
    throw new DomainError(ErrorCode.ROLE_REQUIRED, `this API key lacks the role "${role}" needed here (it holds: ${held})`);
  }
}
