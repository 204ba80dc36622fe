import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../adapters/http/openapi/openapi-document.js';
import { UNKNOWN_ROUTE_CODE, WRONG_METHOD_CODE } from '../../adapters/http/openapi/operation-codes.js';

/*
 * Holds answers to the OpenAPI document: given the request (method, URL, body) and the response, finds
 * the operation and checks that the status is one it documents, that the body has the documented media
 * type and validates against its schema, and that the documented required headers are there. A request
 * answered 200 must also satisfy the documented request body schema, so the document is never stricter
 * than the server. An error body's `code` must be one the operation lists for that status (the schema's
 * enum, from operation-codes.ts through STATUS_BY_CODE); a documented path asked with a method it has no
 * operation for answers only the shared 405 (METHOD_NOT_ALLOWED, `Allow`); any other path of the API
 * answers only the unknown-route 404 with ROUTE_NOT_FOUND.
 */

type Json = Record<string, any>;

export interface Exchange {
  method: string;
  url: string;
  requestBody?: string | undefined;
  status: number;
  headers: Headers;
  body: string;
}

interface Route {
  template: string;
  pattern: RegExp;
  item: Json;
}

const IGNORED_METHODS = new Set(['HEAD', 'OPTIONS']);

export class OpenApiConformance {
  readonly document: Json;
  private readonly ajv: Ajv2020;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: Json = buildOpenApiDocument()) {
    this.document = document;
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    // The whole document as one schema resource, so `#/components/schemas/…` resolves inside it.
    this.ajv.addSchema(document, 'openapi.json');
    this.routes = Object.entries(document.paths as Json).map(([template, item]) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i'),
      item: item as Json,
    }));
  }

  /** The documented path template for a request path (the singular `vault` alias included), if any. */
  route(pathname: string): Route | undefined {
    const canonical = pathname.replace(/^\/api\/v1\/vault\//i, '/api/v1/vaults/');
    return this.routes.find((r) => r.pattern.test(canonical));
  }

  /** Problems with one exchange (empty when it conforms, or when the path is not one of the API's). */
  check(exchange: Exchange): string[] {
    const method = exchange.method.toUpperCase();
    if (IGNORED_METHODS.has(method)) return [];
    const pathname = withoutMountPath(new URL(exchange.url).pathname);
    const route = this.route(pathname);
    const where = `${method} ${pathname} → ${exchange.status}`;
    if (!route) {
      // Outside the documented paths only the unknown-route answer can come from the API.
      if (/^\/api\/v1\//i.test(pathname)) return this.checkError(exchange, where);
      return [];
    }
    const operation = route.item[method.toLowerCase()] as Json | undefined;
    if (!operation) return this.checkWrongMethod(exchange, where);
    const pointer = ['paths', route.template, method.toLowerCase()];
    const found = this.resolve(operation.responses?.[String(exchange.status)], [...pointer, 'responses', String(exchange.status)]);
    const response = found?.value;
    if (!found || !response) return [`${where}: status ${exchange.status} is not documented for ${operation.operationId} (body ${exchange.body.slice(0, 200)})`];
    const problems = [
      ...this.checkHeaders(response, found.pointer, exchange, where),
      ...this.checkContent(response, found.pointer, exchange.headers.get('content-type'), exchange.body, where),
    ];
    if (exchange.status === 200 && operation.requestBody && typeof exchange.requestBody === 'string') {
      problems.push(
        ...this.checkContent(operation.requestBody, [...pointer, 'requestBody'], 'application/json', exchange.requestBody, `${where} (request body)`),
      );
    }
    return problems;
  }

  /** Validates a value against the schema at a JSON pointer into the document (for examples and tests). */
  validate(pointer: string[], value: unknown): string[] {
    const validate = this.validator(pointer);
    return validate(value) ? [] : [this.ajv.errorsText(validate.errors)];
  }

  /** Follows a `$ref` (`#/components/responses/Error400`) to the object and its pointer. */
  private resolve(value: Json | undefined, pointer: string[]): { value: Json; pointer: string[] } | undefined {
    if (!value) return undefined;
    if (typeof value.$ref !== 'string') return { value, pointer };
    const target = (value.$ref as string).replace(/^#\//, '').split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    return this.resolve(target.reduce<Json | undefined>((node, key) => node?.[key], this.document), target);
  }

  private checkError(exchange: Exchange, where: string): string[] {
    if (exchange.status !== 404) return [`${where}: an undocumented route answered ${exchange.status} instead of 404`];
    const code = codeOf(exchange.body);
    if (code !== undefined && code !== UNKNOWN_ROUTE_CODE) return [`${where}: an undocumented route answered code ${code} instead of ${UNKNOWN_ROUTE_CODE}`];
    return this.checkContent(
      { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      ['components', 'schemas', 'Error'],
      exchange.headers.get('content-type'),
      exchange.body,
      where,
      true,
    );
  }

  /** A known path asked with a method it does not serve: the shared 405 every operation refers to. */
  private checkWrongMethod(exchange: Exchange, where: string): string[] {
    if (exchange.status !== 405) return [`${where}: a known path asked with a method it does not serve answered ${exchange.status} instead of 405`];
    const code = codeOf(exchange.body);
    if (code !== WRONG_METHOD_CODE) return [`${where}: a wrong method answered code ${String(code)} instead of ${WRONG_METHOD_CODE}`];
    const pointer = ['components', 'responses', 'MethodNotAllowed'];
    const response = this.resolve(pointer.reduce<Json | undefined>((node, key) => node?.[key], this.document), pointer);
    if (!response) return [`${where}: the document has no ${pointer.join('/')}`];
    return [
      ...this.checkHeaders(response.value, response.pointer, exchange, where),
      ...this.checkContent(response.value, response.pointer, exchange.headers.get('content-type'), exchange.body, where),
    ];
  }

  /** Required headers are there; every documented header that is there has a value its schema allows. */
  private checkHeaders(response: Json, pointer: string[], exchange: Exchange, where: string): string[] {
    return Object.entries((response.headers ?? {}) as Json).flatMap(([name, header]) => {
      const value = exchange.headers.get(name);
      if (value === null) return header.required ? [`${where}: required header ${name} is missing`] : [];
      if (!header.schema) return [];
      const validate = this.validator([...pointer, 'headers', name, 'schema']);
      return validate(value) ? [] : [`${where}: header ${name}: ${JSON.stringify(value)} does not match the document: ${this.ajv.errorsText(validate.errors)}`];
    });
  }

  private checkContent(holder: Json, pointer: string[], contentType: string | null, text: string, where: string, direct = false): string[] {
    const types = Object.keys((holder.content ?? {}) as Json);
    if (types.length === 0) return [];
    const mediaType = types.find((t) => (contentType ?? '').toLowerCase().startsWith(t));
    if (!mediaType) return [`${where}: content type ${contentType} is not one of ${types.join(', ')}`];
    let value: unknown = text;
    if (mediaType === 'application/json') {
      try {
        value = JSON.parse(text);
      } catch {
        return [`${where}: body is not JSON: ${text.slice(0, 200)}`];
      }
    }
    const validate = this.validator(direct ? pointer : [...pointer, 'content', mediaType, 'schema']);
    if (validate(value)) return [];
    return [`${where}: body does not match the document: ${this.ajv.errorsText(validate.errors)}; body ${text.slice(0, 300)}`];
  }

  private validator(pointer: string[]): ValidateFunction {
    const ref = `openapi.json#/${pointer.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}

/** The `code` of an error body, if it has one (the schema check reports a body without). */
function codeOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { code?: unknown } | null)?.code;
  } catch {
    return undefined;
  }
}

let shared: OpenApiConformance | undefined;
const failures: string[] = [];
const mountPaths = new Set<string>();

/**
 * Where this process's tests mount vaultRouter (test/support/backends.ts): what answers under it is the
 * API's too, and is held to the document as the standalone server's answers are.
 */
export function registerMountPath(mountPath: string): void {
  mountPaths.add(mountPath.replace(/\/+$/, ''));
}

function withoutMountPath(pathname: string): string {
  for (const mount of mountPaths) if (pathname.startsWith(`${mount}/`)) return pathname.slice(mount.length);
  return pathname;
}

/**
 * Wraps globalThis.fetch so every answer a test receives from the API is checked against the document.
 * A mismatch fails the call (the test sees the error where it made the request) and is also kept for
 * takeConformanceFailures(), so a test that swallows fetch errors still fails.
 */
export function installFetchConformance(): void {
  const original = globalThis.fetch;
  if ((original as { conformance?: boolean }).conformance) return;
  const wrapped = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await original(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    let body: string;
    try {
      body = await response.clone().text();
    } catch {
      return response; // aborted while reading: nothing complete to check
    }
    shared ??= new OpenApiConformance();
    const problems = shared.check({
      method,
      url,
      requestBody: typeof init?.body === 'string' ? init.body : init?.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : undefined,
      status: response.status,
      headers: response.headers,
      body,
    });
    if (problems.length > 0) {
      failures.push(...problems);
      throw new Error(`OpenAPI conformance: ${problems.join('\n')}`);
    }
    return response;
  };
  (wrapped as { conformance?: boolean }).conformance = true;
  globalThis.fetch = wrapped as typeof fetch;
}

export function takeConformanceFailures(): string[] {
  return failures.splice(0);
}
