import type { RequestListener } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { HttpPipeline } from './pipeline.js';
import { attachRequestContext, requestIdOf, type RequestContext } from './request-context.js';

/** Where answered requests are counted; PrometheusMetrics implements it. */
export interface RequestObserver {
  observeRequest(method: string, route: string, status: number, seconds: number): void;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

/**
 * The standalone server's request listener, the outermost layer of every request: gives the request its
 * id (echoed in `X-Request-Id`) and its context, hands it to the pipeline (the server is mounted at the
 * root), and on the answer logs one `request` line and feeds the metrics, labelled by route pattern.
 * It calls the pipeline itself, so no listener of the composition root's runs per request.
 */
export function observeRequests(
  pipeline: HttpPipeline,
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
    void pipeline.handle(req, res, { url: req.url ?? '/', base: '' });
  };
}
