import type { ReplayGuard } from '../../src/ports/replay-guard.port.js';

/**
 * The shared guard (the database's nonces, seen by every instance and after a restart) behind this
 * process's memory of the nonces it accepted: a database writer who deletes an accepted nonce's row can
 * then replay its request only to another instance, or after a restart, not to the one that accepted it.
 * A nonce is new only if both say so; memory answers a replay to this process without asking the database.
 */
export class LayeredReplayGuard implements ReplayGuard {
  constructor(
    private readonly local: ReplayGuard,
    private readonly shared: ReplayGuard,
  ) {}

  async firstUse(nonce: string, expiresAt: Date): Promise<boolean> {
    if (!(await this.local.firstUse(nonce, expiresAt))) return false;
    return this.shared.firstUse(nonce, expiresAt);
  }
}
