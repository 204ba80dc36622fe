/**
 * A request that failed: the server's answer (`status` and its `error` message), or no answer at all
 * (`status` 0: the network failed or `timeoutMs` passed, see `reason`). `requestId` is the id the
 * server logged the request under (the `X-Request-Id` the client sent, or the server's own).
 */
export class VaultError extends Error {
  override readonly name = 'VaultError';
  readonly status: number;
  readonly requestId: string | undefined;
  readonly reason: 'http' | 'timeout' | 'network';

  constructor(message: string, init: { status: number; requestId?: string | undefined; reason: VaultError['reason']; cause?: unknown }) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.requestId = init.requestId;
    this.reason = init.reason;
  }
}
