import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
 * Where the Swagger UI files are: `dist/api-docs/` of the package, copied there by the build
 * (scripts/copy-api-docs-assets.mjs), so an installed package needs no swagger-ui-dist and none of its
 * install-time telemetry. A source checkout that has not been built reads the development dependency.
 */
export function apiDocsAssetsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'package.json'))) {
      const packaged = path.join(dir, 'dist', 'api-docs');
      if (existsSync(path.join(packaged, 'swagger-ui-bundle.js'))) return packaged;
      break;
    }
    dir = path.dirname(dir);
  }
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** A document the API docs serve: its content type, extra headers and bytes. */
export interface DocsFile {
  readonly type: string;
  readonly headers?: Record<string, string>;
  readonly body: string | Buffer;
}

/**
 * `GET /openapi.json` (the API's OpenAPI 3.1 document) and, unless turned off, `GET /docs` (Swagger UI
 * rendering it), free of any framework: the standalone server's route table (routes.ts) and the
 * Express helper below serve the same files. `base` is where the app is mounted ('' at the root).
 */
export function apiDocs(options: ApiDocsOptions) {
  let documentText: string | undefined;
  const files = new Map<string, Buffer>();
  let assetsDir: string | undefined;
  const asset = (name: string) => {
    let file = files.get(name);
    if (!file) {
      file = name === 'init.js' ? Buffer.from(INIT_JS) : readFileSync(path.join((assetsDir ??= apiDocsAssetsDir()), name));
      files.set(name, file);
    }
    return file;
  };
  return {
    ui: options.ui,
    openApi: (): DocsFile => ({ type: 'application/json; charset=utf-8', body: (documentText ??= JSON.stringify(buildOpenApiDocument())) }),
    page: (base: string): DocsFile => ({ type: 'text/html; charset=utf-8', headers: { 'Content-Security-Policy': CSP }, body: page(base) }),
    /** A file of the page by name; undefined for any other name. */
    asset(name: string): DocsFile | undefined {
      const type = name === 'init.js' ? 'text/javascript; charset=utf-8' : ASSETS[name];
      if (type === undefined) return undefined;
      return { type, headers: { 'Content-Security-Policy': CSP, 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' }, body: asset(name) };
    },
  };
}

/**
 * The same documents on an Express app or router (`wallet-vault/express`). Both need no
 * authentication. Call it on any app or router before its 404 handler.
 */
export function registerApiDocs(router: IRouter, options: ApiDocsOptions): void {
  const docs = apiDocs(options);
  const send = (res: Response, file: DocsFile) => res.status(200).set({ ...file.headers, 'Content-Type': file.type }).send(file.body);
  router.get('/openapi.json', (_req: Request, res: Response) => void send(res, docs.openApi()));
  if (!options.ui) return;
  router.get('/docs', (req: Request, res: Response) => void send(res, docs.page(req.baseUrl)));
  router.get('/docs/assets/:name', (req: Request, res: Response, next) => {
    const file = docs.asset(String(req.params.name));
    if (file === undefined) return next();
    send(res, file);
  });
}
