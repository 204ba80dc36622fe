import type { RequestListener } from 'node:http';
import { performance } from 'node:perf_hooks';
import { attachRequestContext, requestIdOf, type RequestContext } from './request-context.js';

/** Where answered requests are counted; PrometheusMetrics implements it. */
export interface RequestObserver {
  observeRequest(method: string, route: string, status: number, seconds: number): void;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

/**
 * The outermost layer of every request, before the sign fast path and Express: gives the request its id
 * (echoed in `X-Request-Id`) and its context, and on the answer logs one `request` line and feeds the
 * metrics, labelled by route pattern.
 */
export function observeRequests(
  listener: RequestListener,
  deps: { logger: { info(o: object, m?: string): void }; metrics?: RequestObserver },
): RequestListener {
  return (req, res) => {
    const context: RequestContext = { requestId: requestIdOf(req) };
    // performance.now() and `on` (a response finishes once): no BigInt pair and no once-wrapper per request.
    const started = performance.now();
    res.setHeader('X-Request-Id', context.requestId);
    res.on('finish', () => {
      const seconds = (performance.now() - started) / 1000;
      const route = context.route ?? context.resolveRoute?.() ?? 'unmatched';
      const method = METHODS.has(req.method ?? '') ? req.method! : 'OTHER';
      deps.metrics?.observeRequest(method, route, res.statusCode, seconds);
      deps.logger.info({ requestId: context.requestId, method, route, status: res.statusCode, ms: seconds * 1000 }, 'request');
    });
    attachRequestContext(req, context);
    listener(req, res);
  };
}
