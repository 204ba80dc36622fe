import type { VaultErrorCode } from './error-codes.js';
import type { Approval } from './types.js';

/**
 * A request that failed: the server's answer (`status`, its `error` message and its stable `code`), or
 * no answer at all (`status` 0: the network failed or `timeoutMs` passed, see `reason`). `requestId` is
 * the id the server logged the request under (the `X-Request-Id` the client sent, or the server's own).
 */
export class VaultError extends Error {
  override readonly name: string = 'VaultError';
  readonly status: number;
  /**
   * What went wrong, for a program to act on (`WALLET_NOT_FOUND`, `POLICY_DENIED`, `RATE_LIMITED` …).
   * Undefined without an answer, or when the answer carries no code this client knows (not the vault's
   * envelope, e.g. a proxy's error page, or a code of a newer server): then `status` is what there is.
   */
  readonly code: VaultErrorCode | undefined;
  readonly requestId: string | undefined;
  readonly reason: 'http' | 'timeout' | 'network';

  constructor(
    message: string,
    init: { status: number; code?: VaultErrorCode | undefined; requestId?: string | undefined; reason: VaultError['reason']; cause?: unknown },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.reason = init.reason;
  }

  /**
   * The refusal in one line, code first (`POLICY_DENIED (403): …`). viem builds the message of the error
   * it wraps a signing failure in (TransactionExecutionError) from its cause's `shortMessage`: without
   * this it reads only "An error occurred." when a vault account's signature is refused.
   */
  get shortMessage(): string {
    return `${this.code ?? (this.status === 0 ? this.reason : `HTTP ${this.status}`)}${this.status > 0 && this.code ? ` (${this.status})` : ''}: ${this.message}`;
  }
}

/**
 * The VaultError behind `error`, however deep a library wrapped it: viem wraps a vault account's refusal
 * in its TransactionExecutionError (`cause`), ethers may wrap in its own. Undefined when there is none.
 * `vaultErrorOf(e)?.code === 'POLICY_DENIED'` works on what `writeContract` or `sendTransaction` threw.
 */
export function vaultErrorOf(error: unknown): VaultError | undefined {
  for (let e: unknown = error, depth = 0; e !== null && e !== undefined && depth < 16; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof VaultError) return e;
  }
  return undefined;
}

/**
 * `sign()`, `signMessage()`, `signTypedData()` or `signTransaction()` asked for a signature and the vault
 * held the request for a quorum of approver keys (HTTP 202): nothing is signed yet. `approval` says how to
 * follow it (`getApproval(approval.id)`: its `result` once approved); `requestSign()`,
 * `requestSignMessage()`, `requestSignTypedData()` and `requestSignTransaction()` answer the same without throwing.
 */
export class ApprovalPendingError extends VaultError {
  override readonly name = 'ApprovalPendingError';
  /** Always `APPROVAL_PENDING` (the JSON-RPC endpoint's `data.code` for the same case): a program branches on it as on any code. */
  declare readonly code: 'APPROVAL_PENDING';
  readonly approval: Approval;

  /** `operation`: the method that asked (`sign`, `signMessage`, …). */
  constructor(approval: Approval, requestId: string | undefined, operation = 'sign') {
    super(`${operation}: held for approval ${approval.id} (${approval.approvals} of ${approval.required} approvals, expires ${approval.expires}); nothing is signed yet`, {
      status: 202,
      code: 'APPROVAL_PENDING',
      requestId,
      reason: 'http',
    });
    this.approval = approval;
  }
}
