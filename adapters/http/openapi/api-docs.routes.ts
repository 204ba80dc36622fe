import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { IRouter, Request, Response } from 'express';
import { buildOpenApiDocument } from './openapi-document.js';

export interface ApiDocsOptions {
  /** Serve the Swagger UI page at `/docs` (VAULT_API_DOCS; default true). `/openapi.json` is always served. */
  readonly ui: boolean;
}

/*
 * The page allows nothing but this origin's scripts, styles and fetches: the bundle is served from
 * node_modules (no CDN), and the start-up script is a file of ours rather than an inline <script>.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The Swagger UI files the page uses, by the name it asks for. Nothing else of the package is served. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const INIT_JS = `window.addEventListener('load', function () {
  var page = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: page.getAttribute('data-openapi'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const page = (base: string) => `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>wallet-vault API</title>
<link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="${base}/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui" data-openapi="${base}/openapi.json"></div>
<script src="${base}/docs/assets/swagger-ui-bundle.js"></script>
<script src="${base}/docs/assets/init.js"></script>
</body>
</html>
`;

/**
 * `GET /openapi.json` (the API's OpenAPI 3.1 document) and, unless turned off, `GET /docs` (Swagger UI
 * rendering it). Both need no authentication. Call it on any app or router before its 404 handler.
 */
export function registerApiDocs(router: IRouter, options: ApiDocsOptions): void {
  let documentText: string | undefined;
  router.get('/openapi.json', (_req: Request, res: Response) => {
    documentText ??= JSON.stringify(buildOpenApiDocument());
    res.status(200).type('application/json').send(documentText);
  });
  if (!options.ui) return;

  const dist = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, Buffer>();
  const asset = (name: string) => {
    let file = files.get(name);
    if (!file) {
      file = name === 'init.js' ? Buffer.from(INIT_JS) : readFileSync(path.join(dist, name));
      files.set(name, file);
    }
    return file;
  };
  router.get('/docs', (req: Request, res: Response) => {
    res.status(200).set('Content-Security-Policy', CSP).type('text/html; charset=utf-8').send(page(req.baseUrl));
  });
  router.get('/docs/assets/:name', (req: Request, res: Response, next) => {
    const name = String(req.params.name);
    const type = name === 'init.js' ? 'text/javascript; charset=utf-8' : ASSETS[name];
    if (type === undefined) return next();
    res
      .status(200)
      .set({ 'Content-Security-Policy': CSP, 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' })
      .type(type)
      .send(asset(name));
  });
}
