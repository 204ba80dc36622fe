import { AUTH_SIGNATURE_WINDOW_MS, verifyAuthSignature } from '../../domain/auth-signature.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { ReplayGuard } from '../../ports/replay-guard.port.js';
import { actorOf, audit } from '../audit/audit-actor.js';
import type { Principal } from './authenticate.use-case.js';

/**
 * Enforces X-Vault-Auth-Signature on every route whose body asks for a signature (body kind `signed` or
 * `signed-json` in adapters/http/routes.ts: Sign, the standard signing routes, the JSON-RPC endpoint):
 * required with a shared secret, refused without one.
 */
export class VerifyAuthSignature {
  constructor(
    private readonly secret: string | undefined,
    private readonly replayGuard: ReplayGuard,
    private readonly clock: Clock,
    private readonly auditLog: AuditLog,
  ) {}

  /**
   * `signature`: the value the caller sent (undefined: none) over `rawBody`, the bytes as received.
   * Refusals are recorded in the audit trail against the API key that sent them.
   */
  async execute(signature: string | undefined, rawBody: Buffer, principal: Principal): Promise<void> {
    if (this.secret === undefined) {
      if (signature !== undefined) {
        return this.refuse(principal, 'X-Vault-Auth-Signature must not be sent: this vault has no VAULT_AUTH_SECRET_KEY configured');
      }
      return;
    }
    if (signature === undefined || signature === '') return this.refuse(principal, 'X-Vault-Auth-Signature header is required');
    const now = this.clock.now();
    const verdict = verifyAuthSignature(signature, rawBody, this.secret, now);
    if (!verdict.ok) return this.refuse(principal, verdict.reason);
    // Remember the nonce until its signature could no longer pass the freshness check.
    const forgetAt = new Date(verdict.timestamp.getTime() + AUTH_SIGNATURE_WINDOW_MS + 1);
    if (!(await this.replayGuard.firstUse(verdict.nonceHex, forgetAt))) {
      return this.refuse(principal, 'X-Vault-Auth-Signature was already used (replay)');
    }
  }

  private async refuse(principal: Principal, message: string): Promise<never> {
    await audit(this.auditLog, 'auth.refused', this.clock.now(), actorOf(principal), principal.vaultId, null, { reason: message });
    throw new DomainError(ErrorCode.UNAUTHENTICATED, message);
  }
}
