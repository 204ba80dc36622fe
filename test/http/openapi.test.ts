import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../adapters/http/openapi/openapi-document.js';
import { openApiFileText } from '../../adapters/http/openapi/write-openapi-file.js';
import { OpenApiConformance } from '../support/openapi-conformance.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const document = buildOpenApiDocument();

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is shipped as openapi.json exactly as the code generates it (npm run build writes it)', () => {
    expect(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')).toBe(openApiFileText());
  });

  it('describes every route of docs/api.md, with the statuses of decisions.md', () => {
    const V = '/api/v1/vaults/{vaultId}';
    const operations = Object.entries(document.paths!).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId: string; responses: Record<string, unknown> }>).map(([method, op]) => ({
        at: `${method.toUpperCase()} ${path}`,
        id: op.operationId,
        statuses: Object.keys(op.responses),
      })),
    );
    expect(operations.map((o) => o.at).sort()).toEqual(
      [
        `POST ${V}/sign`,
        `GET ${V}/wallets`,
        `POST ${V}/wallets`,
        `GET ${V}/wallets/{address}`,
        `PUT ${V}/wallets/{address}`,
        `DELETE ${V}/wallets/{address}`,
        `POST ${V}/wallets/{address}`,
        `GET ${V}/status`,
        `POST ${V}/submissions`,
        `GET ${V}/submissions/{submissionHash}`,
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
        'GET /openapi.json',
      ].sort(),
    );
    const sign = operations.find((o) => o.id === 'sign')!;
    expect(sign.statuses).toEqual(['200', '400', '401', '403', '404', '408', '413', '429', '431', '500', '502', '503']);
    expect(operations.find((o) => o.id === 'createWallet')!.statuses).toContain('409');
    expect(operations.find((o) => o.id === 'recordSubmission')!.statuses).toContain('409');
    expect(document.components!.securitySchemes).toMatchObject({
      apiKey: { type: 'http', scheme: 'bearer' },
      authSignature: { type: 'apiKey', in: 'header', name: 'X-Vault-Auth-Signature' },
    });
  });

  it('has examples that match their own schemas', () => {
    const conformance = new OpenApiConformance(document);
    const checked: string[] = [];
    const visit = (node: unknown, pointer: string[]) => {
      if (typeof node !== 'object' || node === null) return;
      const n = node as Record<string, unknown>;
      if ('schema' in n && 'example' in n) {
        checked.push(pointer.join('/'));
        expect(conformance.validate([...pointer, 'schema'], n.example), pointer.join('/')).toEqual([]);
      }
      for (const [key, child] of Object.entries(n)) visit(child, [...pointer, key]);
    };
    visit(document.paths, ['paths']);
    expect(checked.length).toBeGreaterThanOrEqual(10);
  });
});

describe('GET /openapi.json and GET /docs', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s?.stop());

  it('serves the document without authentication', async () => {
    const res = await fetch(`${s.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('serves the reference page with a strict Content-Security-Policy and only the files it needs', async () => {
    const page = await fetch(`${s.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe');
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(html).not.toMatch(/<script>|https?:\/\//);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) {
      expect((await fetch(`${s.url}/docs/assets/${asset}`)).status, asset).toBe(200);
    }
    // Nothing else of swagger-ui-dist (its sample initializer points at a public petstore).
    for (const other of ['swagger-initializer.js', 'index.html', '..%2Fpackage.json']) {
      expect((await fetch(`${s.url}/docs/assets/${other}`)).status, other).toBe(404);
    }
  });

  it('VAULT_API_DOCS=false turns the page off and keeps the document', async () => {
    const off = await startTestServer({ env: { VAULT_API_DOCS: 'false' } });
    try {
      expect((await fetch(`${off.url}/docs`)).status).toBe(404);
      expect((await fetch(`${off.url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(404);
      expect((await fetch(`${off.url}/openapi.json`)).status).toBe(200);
    } finally {
      await off.stop();
    }
  });
});
