import { AUTH_SIGNATURE_WINDOW_MS, verifyAuthSignature } from '../domain/auth-signature.js';
import { DomainError, ErrorCode } from '../domain/errors.js';
import type { Clock } from '../ports/clock.port.js';
import type { ReplayGuard } from '../ports/replay-guard.port.js';

const refuse = (message: string) => new DomainError(ErrorCode.UNAUTHENTICATED, message);

/** Enforces X-Vault-Auth-Signature on Sign: required with a shared secret, refused without one. */
export class VerifyAuthSignature {
  constructor(
    private readonly secret: string | undefined,
    private readonly replayGuard: ReplayGuard,
    private readonly clock: Clock,
  ) {}

  async execute(header: string | undefined, rawBody: Buffer): Promise<void> {
    if (this.secret === undefined) {
      if (header !== undefined) {
        throw refuse('X-Vault-Auth-Signature must not be sent: this vault has no VAULT_AUTH_SECRET_KEY configured');
      }
      return;
    }
    if (header === undefined || header === '') throw refuse('X-Vault-Auth-Signature header is required');
    const now = this.clock.now();
    const verdict = verifyAuthSignature(header, rawBody, this.secret, now);
    if (!verdict.ok) throw refuse(verdict.reason);
    // Remember the nonce until its signature could no longer pass the freshness check.
    const forgetAt = new Date(verdict.timestamp.getTime() + AUTH_SIGNATURE_WINDOW_MS + 1);
    if (!(await this.replayGuard.firstUse(verdict.nonceHex, forgetAt))) {
      throw refuse('X-Vault-Auth-Signature was already used (replay)');
    }
  }
}
