import type { ApiKeyRole } from '../../domain/api-key-access.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import { actorOf, audit } from '../audit/audit-actor.js';
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
   * Resolves when the key holds `role` (one of them, for a list); otherwise records an `auth.refused` event naming the key, the
   * role and `operation` (a route or use case name), then rejects with ROLE_REQUIRED. The caller is
   * authenticated, so the refusal is recorded one by one (not summarised as anonymous refusals are).
   */
  async execute(principal: Principal, role: ApiKeyRole | readonly ApiKeyRole[], operation: string): Promise<void> {
    // A list means any one of them (the approvals' reads: signer, reader or approver).
    if (typeof role === 'string' ? principal.roles.includes(role) : role.some((r) => principal.roles.includes(r))) return;
    const held = principal.roles.join(',');
    const needed = typeof role === 'string' ? role : role.join('|');
    await audit(this.auditLog, 'auth.refused', this.clock.now(), actorOf(principal), principal.vaultId, principal.apiKeyId, {
      reason: `missing role ${needed}`,
      operation,
      roles: held,
    });
    const what = typeof role === 'string' ? `the role "${role}"` : `one of the roles ${role.map((r) => `"${r}"`).join(', ')}`;
    throw new DomainError(ErrorCode.ROLE_REQUIRED, `this API key lacks ${what} needed here (it holds: ${held})`);
  }
}
