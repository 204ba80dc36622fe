import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import type { HttpDeps } from './http-deps.js';
import { jsonReply } from './routes.js';
import type { ServiceRoute } from './service-route.js';

/** Where the seal is read and driven (docs/keystores.md#sealed-start). */
export const SEAL_STATUS_PATH = '/api/v1/sys/seal-status';
export const UNSEAL_PATH = '/api/v1/sys/unseal';
export const SEAL_PATH = '/api/v1/sys/seal';
/** A share file is about 400 bytes: an anonymous caller gets no more than this read. */
const UNSEAL_BODY_LIMIT = 8 * 1024;

const UNSEALED = { sealed: false, threshold: null, progress: 0 } as const;

/**
 * The seal's routes, outside the vaults and without an API key: while sealed no vault's keys can be
 * trusted to sign anything, and the custodians who unseal hold no API key. The status is public (as
 * /readyz is); an unseal carries its own credential, the share, so it is open to anyone but limited per
 * client address and in body size, and each refused share is recorded; the seal needs the operator
 * token (VAULT_METRICS_TOKEN), and without one configured it is refused: restart the process to seal it.
 */
export function sealRoutes(deps: HttpDeps, operator: (authorization: string | undefined) => boolean): ServiceRoute[] {
  return [
    { path: SEAL_STATUS_PATH, answer: async () => jsonReply(200, deps.seal?.status() ?? UNSEALED) },
    {
      path: UNSEAL_PATH,
      method: 'POST',
      body: 'json',
      bodyLimitBytes: UNSEAL_BODY_LIMIT,
      limited: true,
      // Each share, taken or refused, is recorded.
      audited: true,
      answer: async (r) => {
        const share = shareOf(r.body);
        if (!deps.seal) throw new DomainError(ErrorCode.CONFLICT, 'share: this server has no seal (VAULT_SEAL is not set): there is nothing to unseal');
        return jsonReply(200, await deps.seal.submit(share, r.client));
      },
    },
    {
      path: SEAL_PATH,
      method: 'POST',
      limited: true,
      audited: true,
      answer: async (r) => {
        if (deps.operatorToken === undefined || !operator(r.authorization)) {
          if (/^Bearer\s+\S/i.test(r.authorization ?? '')) r.refusedToken();
          throw new DomainError(
            ErrorCode.UNAUTHENTICATED,
            deps.operatorToken === undefined
              ? 'seal needs the operator token, and this server has none (set VAULT_METRICS_TOKEN; or restart the process, which starts sealed)'
              : 'seal needs the operator token (Authorization: Bearer <VAULT_METRICS_TOKEN>)',
          );
        }
        if (!deps.seal) throw new DomainError(ErrorCode.CONFLICT, 'this server has no seal (VAULT_SEAL is not set): there is nothing to seal');
        return jsonReply(200, await deps.seal.seal('operator'));
      },
    },
  ];
}

/** `{"share": "<a share file's text>"}` (or its JSON object), nothing else. */
function shareOf(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'share: is required (the body is {"share": "<contents of a share file>"})');
  const extra = Object.keys(body).find((k) => k !== 'share');
  if (extra !== undefined) throw new DomainError(ErrorCode.INVALID_ARGUMENT, `${extra}: is not a field of this request (share)`);
  const share = (body as { share?: unknown }).share;
  if (typeof share !== 'string' && (typeof share !== 'object' || share === null)) {
    throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'share: is required, as the contents of a share file (a string)');
  }
  return share;
}
