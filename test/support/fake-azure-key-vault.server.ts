import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import secp256k1 from 'secp256k1';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');

interface FakeVersion {
  readonly version: string;
  readonly privateKey: Buffer;
  readonly kty: 'EC' | 'EC-HSM';
  readonly keyOps: string[];
  readonly created: number;
  enabled: boolean;
  updated: number;
  tags: Record<string, string>;
  /** Made by import (PUT /keys/{name}) rather than create. */
  readonly imported: boolean;
}

interface FakeKey {
  readonly name: string;
  readonly versions: FakeVersion[];
  /** Set by DELETE: soft-deleted, recoverable until purge (the fake never purges). */
  deletedDate?: number;
}

export interface FakeAzureKeyVault {
  /** The vault URL to give the store (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** The bearer token the fake accepts; a credential that returns it is `credential`. */
  readonly token: string;
  /** A TokenCredential returning `token` (what a managed identity would return in Azure). */
  readonly credential: { getToken(): Promise<{ token: string; expiresOnTimestamp: number }> };
  /** Every operation received, in order (`create`, `import`, `get`, `sign`, `update`, `delete`, `getDeleted`, `list`), after authentication. */
  readonly calls: string[];
  /** Requests answered 401 with the challenge (no or a wrong bearer token). */
  challenges: number;
  /**
   * The environment under which DefaultAzureCredential takes its token from this server, as from App
   * Service's managed identity endpoint (IDENTITY_ENDPOINT, IDENTITY_HEADER).
   */
  readonly managedIdentityEnv: { readonly IDENTITY_ENDPOINT: string; readonly IDENTITY_HEADER: string };
  /** Tokens handed out by the managed identity endpoint. */
  tokensIssued: number;
  /** Keys by name, deleted ones included (with deletedDate). */
  readonly keys: Map<string, FakeKey>;
  /** The body of the last import request, as received (to check what crossed the wire). */
  lastImportBody?: Record<string, unknown>;
  /** The next N authenticated requests answer 429 Throttled (with `retryAfter` when set). */
  throttleNext: number;
  /** Retry-After header value sent with the 429s; undefined: none. */
  retryAfter: string | undefined;
  /** The next N authenticated requests answer 500. */
  failNext: number;
  /** Whether EC-HSM keys can be made (a Premium vault or Managed HSM); false answers as a Standard vault would (assumed shape). */
  premium: boolean;
  close(): Promise<void>;
}

/**
 * An Azure Key Vault-compatible server for tests: the REST calls `@azure/keyvault-keys` makes for the
 * `azure-key-vault` store (create, import, get, update, delete, get deleted, list, sign), with Key
 * Vault's paths, api-version query, JSON field names (key bundles with base64url JWK coordinates, Unix
 * seconds in `attributes`), error envelope `{"error": {"code", "message"}}`, and the SDK's
 * challenge-based authentication: a request without a valid bearer token is answered 401 with
 * `WWW-Authenticate: Bearer authorization="…", resource="https://vault.azure.net"`. Real secp256k1
 * keys; like Key Vault it returns r‖s with a high s about half the time, so the client must normalise.
 * The challenge's resource is Azure's, not 127.0.0.1, so the client runs with
 * disableChallengeResourceVerification.
 */
export async function startFakeAzureKeyVault(): Promise<FakeAzureKeyVault> {
  const token = `fake-aad-token-${randomBytes(8).toString('hex')}`;
  const identityHeader = randomBytes(8).toString('hex');
  const keys = new Map<string, FakeKey>();
  const state: Omit<FakeAzureKeyVault, 'url' | 'token' | 'credential' | 'calls' | 'keys' | 'close' | 'managedIdentityEnv'> = {
    challenges: 0,
    tokensIssued: 0,
    throttleNext: 0,
    retryAfter: undefined,
    failNext: 0,
    premium: true,
  };
  const calls: string[] = [];
  let base = '';
  const now = () => Math.floor(Date.now() / 1000);

  const kid = (k: FakeKey, v: FakeVersion) => `${base}/keys/${k.name}/${v.version}`;
  const bundle = (k: FakeKey, v: FakeVersion) => {
    const pub = secp256k1.publicKeyCreate(v.privateKey, false);
    return {
      key: { kid: kid(k, v), kty: v.kty, key_ops: v.keyOps, crv: 'P-256K', x: b64url(pub.subarray(1, 33)), y: b64url(pub.subarray(33)) },
      attributes: { enabled: v.enabled, created: v.created, updated: v.updated, recoveryLevel: 'Recoverable+Purgeable', recoverableDays: 90, exportable: false },
      tags: v.tags,
    };
  };
  const deletedBundle = (k: FakeKey) => ({
    ...bundle(k, k.versions.at(-1)!),
    recoveryId: `${base}/deletedkeys/${k.name}`,
    deletedDate: k.deletedDate,
    scheduledPurgeDate: k.deletedDate! + 90 * 86400,
  });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: object, headers: Record<string, string> = {}) => {
        const text = JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'x-ms-request-id': randomBytes(16).toString('hex'), ...headers });
        res.end(text);
      };
      const error = (status: number, code: string, message: string, inner?: string) =>
        reply(status, { error: { code, message, ...(inner ? { innererror: { code: inner } } : {}) } });
      const url = new URL(req.url ?? '/', base);
      if (!url.searchParams.get('api-version')) return error(400, 'BadParameter', 'The api-version query parameter is required.');

      // The App Service managed identity endpoint (IDENTITY_ENDPOINT, IDENTITY_HEADER), which
      // DefaultAzureCredential asks for a token when those variables are set: the whole credential chain runs.
      if (url.pathname === '/msi/token') {
        if (req.headers['x-identity-header'] !== identityHeader || url.searchParams.get('resource') !== 'https://vault.azure.net') {
          return reply(400, { error: 'invalid_request', error_description: 'wrong identity header or resource' });
        }
        state.tokensIssued++;
        return reply(200, { access_token: token, expires_on: String(now() + 3600), resource: 'https://vault.azure.net', token_type: 'Bearer' });
      }

      // Challenge-based authentication, as Key Vault does it: no or an unknown token is a 401 naming the resource.
      if (req.headers.authorization !== `Bearer ${token}`) {
        state.challenges++;
        const challenge = 'Bearer authorization="https://login.microsoftonline.com/00000000-0000-0000-0000-000000000000", resource="https://vault.azure.net"';
        res.writeHead(401, { 'www-authenticate': challenge, 'content-type': 'application/json; charset=utf-8' });
        return res.end(JSON.stringify({ error: { code: 'Unauthorized', message: 'AKV10000: Request is missing a Bearer or PoP token.' } }));
      }

      const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
      const method = req.method ?? 'GET';
      const operation =
        segments[0] === 'deletedkeys' ? 'getDeleted'
        : segments.length === 1 ? 'list'
        : method === 'POST' && segments[2] === 'create' ? 'create'
        : method === 'POST' && segments[3] === 'sign' ? 'sign'
        : method === 'PUT' ? 'import'
        : method === 'PATCH' ? 'update'
        : method === 'DELETE' ? 'delete'
        : 'get';
      calls.push(operation);
      if (state.throttleNext > 0) {
        state.throttleNext--;
        const headers: Record<string, string> = state.retryAfter === undefined ? {} : { 'retry-after': state.retryAfter };
        return reply(429, { error: { code: 'Throttled', message: 'Request was not processed because too many requests were received. Reason: VaultRequestTypeLimitReached' } }, headers);
      }
      if (state.failNext > 0) {
        state.failNext--;
        return error(500, 'InternalServerError', 'injected failure');
      }
      let body: Record<string, unknown>;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
      } catch {
        return error(400, 'BadParameter', 'The request body is not valid JSON.');
      }
      const name = segments[1] ?? '';
      if (segments[0] !== 'keys' && segments[0] !== 'deletedkeys') return error(404, 'NotFound', `no route ${url.pathname}`);
      if (name && !/^[0-9a-zA-Z-]{1,127}$/.test(name)) return error(400, 'BadParameter', 'The key name is invalid.');
      const key = keys.get(name);
      const live = key && key.deletedDate === undefined ? key : undefined;
      const notFound = () => error(404, 'KeyNotFound', `A key with (name/id) ${name} was not found in this key vault.`);
      const versionOf = (k: FakeKey, version: string | undefined) => (version ? k.versions.find((v) => v.version === version) : k.versions.at(-1));
      const validTags = (tags: unknown) =>
        tags === undefined || (typeof tags === 'object' && tags !== null && Object.keys(tags).length <= 15 && Object.entries(tags).every(([k, v]) => k.length <= 512 && typeof v === 'string' && v.length <= 256));

      switch (operation) {
        case 'create':
        case 'import': {
          if (key?.deletedDate !== undefined) return error(409, 'Conflict', `Key ${name} is currently in a deleted but recoverable state, and its name cannot be reused; in this state, the key can only be recovered or purged.`);
          if (!validTags(body.tags)) return error(400, 'BadParameter', 'Invalid tags.');
          let privateKey: Buffer;
          let kty: 'EC' | 'EC-HSM';
          let keyOps: string[];
          if (operation === 'create') {
            if ((body.kty !== 'EC' && body.kty !== 'EC-HSM') || body.crv !== 'P-256K') return error(400, 'BadParameter', 'This test server makes only EC/EC-HSM keys on P-256K.');
            kty = body.kty;
            keyOps = Array.isArray(body.key_ops) ? (body.key_ops as string[]) : ['sign', 'verify'];
            do privateKey = randomBytes(32);
            while (!secp256k1.privateKeyVerify(privateKey));
          } else {
            state.lastImportBody = body;
            const jwk = (body.key ?? {}) as Record<string, unknown>;
            if (jwk.kty !== 'EC' || jwk.crv !== 'P-256K' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
              return error(400, 'BadParameter', 'The JWK is not an EC P-256K private key.');
            }
            privateKey = Buffer.from(jwk.d, 'base64url');
            const pub = secp256k1.privateKeyVerify(privateKey) ? secp256k1.publicKeyCreate(privateKey, false) : undefined;
            if (!pub || Buffer.from(jwk.x, 'base64url').compare(pub.subarray(1, 33)) !== 0 || Buffer.from(jwk.y, 'base64url').compare(pub.subarray(33)) !== 0) {
              return error(400, 'BadParameter', 'The JWK private key does not match its public key.');
            }
            kty = body.Hsm === true ? 'EC-HSM' : 'EC';
            keyOps = Array.isArray(jwk.key_ops) ? (jwk.key_ops as string[]) : ['sign', 'verify'];
          }
          if (kty === 'EC-HSM' && !state.premium) return error(400, 'BadParameter', 'HSM-protected keys need a Premium vault or a Managed HSM.');
          const attributes = (body.attributes ?? {}) as { enabled?: boolean };
          const k = key ?? { name, versions: [] };
          const v: FakeVersion = {
            version: randomBytes(16).toString('hex'),
            privateKey,
            kty,
            keyOps,
            created: now(),
            updated: now(),
            enabled: attributes.enabled !== false,
            tags: (body.tags as Record<string, string> | undefined) ?? {},
            imported: operation === 'import',
          };
          k.versions.push(v);
          keys.set(name, k);
          return reply(200, bundle(k, v));
        }
        case 'get':
        case 'update':
        case 'sign': {
          const v = live && versionOf(live, segments[2]);
          if (!live || !v) return notFound();
          if (operation === 'get') return reply(200, bundle(live, v));
          if (operation === 'update') {
            const attributes = (body.attributes ?? {}) as { enabled?: boolean };
            if (typeof attributes.enabled === 'boolean') v.enabled = attributes.enabled;
            if (body.tags !== undefined) {
              if (!validTags(body.tags)) return error(400, 'BadParameter', 'Invalid tags.');
              v.tags = body.tags as Record<string, string>;
            }
            v.updated = now();
            return reply(200, bundle(live, v));
          }
          if (!v.enabled) return error(403, 'Forbidden', 'Operation "sign" is not allowed on a disabled key.', 'KeyDisabled');
          if (!v.keyOps.includes('sign')) return error(403, 'Forbidden', 'Operation "sign" is not allowed by the key\'s key_ops.');
          if (body.alg !== 'ES256K') return error(400, 'BadParameter', `Algorithm ${String(body.alg)} is not supported for a P-256K key.`);
          const digest = Buffer.from(String(body.value ?? ''), 'base64url');
          if (digest.length !== 32) return error(400, 'BadParameter', 'Invalid length of the digest: ES256K takes 32 bytes.');
          const { signature } = secp256k1.ecdsaSign(digest, v.privateKey);
          if (Math.random() < 0.5) {
            const s = BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`);
            signature.set(Buffer.from((N - s).toString(16).padStart(64, '0'), 'hex'), 32);
          }
          return reply(200, { kid: kid(live, v), value: b64url(signature) });
        }
        case 'delete': {
          if (!live) return notFound();
          live.deletedDate = now();
          return reply(200, deletedBundle(live));
        }
        case 'getDeleted': {
          if (!key || key.deletedDate === undefined) return error(404, 'KeyNotFound', `Deleted Key not found: ${name}`);
          return reply(200, deletedBundle(key));
        }
        case 'list': {
          const all = [...keys.values()].filter((k) => k.deletedDate === undefined);
          const size = Math.min(Number(url.searchParams.get('maxresults') ?? 25), 25);
          const skip = Number(url.searchParams.get('$skiptoken') ?? 0);
          const page = all.slice(skip, skip + size).map((k) => {
            const v = k.versions.at(-1)!;
            return { kid: `${base}/keys/${k.name}`, attributes: bundle(k, v).attributes, tags: v.tags };
          });
          const next = skip + size < all.length ? `${base}/keys?api-version=${url.searchParams.get('api-version')}&$skiptoken=${skip + size}&maxresults=${size}` : null;
          return reply(200, { value: page, nextLink: next });
        }
        default:
          return error(405, 'MethodNotAllowed', `${method} ${url.pathname}`);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return Object.assign(state, {
    url: base,
    token,
    managedIdentityEnv: { IDENTITY_ENDPOINT: `${base}/msi/token`, IDENTITY_HEADER: identityHeader },
    credential: { getToken: async () => ({ token, expiresOnTimestamp: Date.now() + 3_600_000 }) },
    calls,
    keys,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
