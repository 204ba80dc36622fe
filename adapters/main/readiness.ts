import { DomainError, ErrorCode } from '../../src/domain/errors.js';

/** One dependency `/readyz` checks: `database`, `key store <name>`. */
export interface ReadinessCheck {
  readonly name: string;
  readonly code: typeof ErrorCode.DATABASE_UNAVAILABLE | typeof ErrorCode.KEYSTORE_UNAVAILABLE | typeof ErrorCode.VAULT_SEALED;
  ping(): Promise<void>;
}

/**
 * Not ready. The message names only which dependencies are down (`database unavailable; key store pkcs11
 * unavailable`), as anyone who can reach /readyz may read it; `details` says why (hosts, mounts, modules),
 * for the log and for a caller with the operator token.
 */
export class ReadinessFailure extends DomainError {
  constructor(
    code: ReadinessCheck['code'],
    message: string,
    readonly details: string,
  ) {
    super(code, message);
  }
}

/**
 * Pings every dependency at once, each bounded by `timeoutMs` (a probe must answer promptly even when a
 * dependency hangs), and rejects with one ReadinessFailure naming every dependency that failed or did not
 * answer.
 */
export function readinessOf(checks: readonly ReadinessCheck[], timeoutMs: number): () => Promise<void> {
  return async () => {
    const results = await Promise.all(checks.map((c) => bounded(c, timeoutMs)));
    const failed = results.filter((r): r is { check: ReadinessCheck; problem: string } => r !== undefined);
    if (failed.length === 0) return;
    throw new ReadinessFailure(
      failed[0]!.check.code,
      failed.map((f) => `${f.check.name} unavailable`).join('; '),
      failed.map((f) => f.problem).join('; '),
    );
  };
}

async function bounded(check: ReadinessCheck, timeoutMs: number): Promise<{ check: ReadinessCheck; problem: string } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`${check.name}: did not answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    const outcome = await Promise.race([
      check.ping().then(
        () => undefined,
        // Store and database errors already name their dependency; anything else gets the name here.
        (error: unknown) => (error instanceof DomainError ? error.message : `${check.name}: failed`),
      ),
      timeout,
    ]);
    return outcome === undefined ? undefined : { check, problem: outcome };
  } finally {
    clearTimeout(timer);
  }
}
