import type { RequestListener } from 'node:http';
import type { Express } from 'express';
import { clientAddressOf } from './address-rate-limit.js';
import { ownRequestId, VAULT_ROUTE_PREFIX } from './http-app.js';
import type { HttpDeps } from './http-deps.js';
import { requestContextOf } from './request-context.js';
import { handleSign, writeSignOutput } from './sign-handler.js';

const SIGN_PATH = /^\/api\/v1\/vaults?\/([^/?#]+)\/sign\/?(?:\?.*)?$/i;
/** The route label of every sign: one string, whose hash the metrics' lookup computes once. */
const SIGN_ROUTE = `${VAULT_ROUTE_PREFIX}/sign`;

/**
 * Sign is the hot path. Express 5's routing alone costs more per request here than the whole signature
 * (measured: 3 070 req/s for an empty Express route against 16 391 for node:http, see
 * docs/benchmarks.md), so the standalone server dispatches POST .../sign before Express, to the same
 * framework-free handler the router's sign route calls (sign-handler.ts). Every other request goes to
 * the Express app.
 */
export function withSignFastPath(app: Express, deps: HttpDeps): RequestListener {
  return (req, res) => {
    if (req.method === 'POST') {
      const match = SIGN_PATH.exec(req.url ?? '');
      if (match) {
        // The id, the request log line and the metrics come from observe-requests.ts, which wraps this listener.
        const context = requestContextOf(req);
        const requestId = context?.requestId ?? ownRequestId(res);
        if (context) context.route = SIGN_ROUTE;
        const source = clientAddressOf(deps, req);
        void handleSign(deps, { vaultId: match[1]!, vaultIdEncoded: true, headers: req.headers, body: req, requestId, source }).then((out) =>
          writeSignOutput(res, out),
        );
        return;
      }
    }
    app(req, res);
  };
}
