import {
  constants as cryptoConstants,
  createDecipheriv,
  createPrivateKey,
  createVerify,
  generateKeyPair,
  generateKeyPairSync,
  privateDecrypt,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import secp256k1 from 'secp256k1';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SPKI_PREFIX = Buffer.from('3056301006072a8648ce3d020106052b8104000a034200', 'hex');

/**
 * One RSA-4096 wrapping key for every import job of this process, made in the background when the first
 * job is created (it takes seconds): until then jobs are PENDING_GENERATION, as Cloud KMS's are.
 */
let wrappingKey: { privateKey: KeyObject; pem: string } | undefined;
let wrappingKeyStarted = false;
function startWrappingKey(): void {
  if (wrappingKeyStarted) return;
  wrappingKeyStarted = true;
  generateKeyPair('rsa', { modulusLength: 4096 }, (error, publicKey, privateKey) => {
    if (error) throw error;
    wrappingKey = { privateKey, pem: publicKey.export({ format: 'pem', type: 'spki' }).toString() };
  });
}

/** The enums of google.cloud.kms.v1 this server speaks, by name and by number (protos.json of @google-cloud/kms). */
const ENUMS = {
  purpose: { ASYMMETRIC_SIGN: 5 },
  protectionLevel: { SOFTWARE: 1, HSM: 2 },
  algorithm: { EC_SIGN_SECP256K1_SHA256: 31 },
  versionState: { ENABLED: 1, DISABLED: 2, DESTROYED: 3, DESTROY_SCHEDULED: 4, PENDING_GENERATION: 5, PENDING_IMPORT: 6 },
  importMethod: { RSA_OAEP_4096_SHA256_AES_256: 4 },
  importJobState: { PENDING_GENERATION: 1, ACTIVE: 2, EXPIRED: 3 },
} as const;
type EnumName<K extends keyof typeof ENUMS> = keyof (typeof ENUMS)[K] & string;

/** An enum field of a request, given by name or (enum-encoding=int, what the REST transport sends) by number. */
function enumIn<K extends keyof typeof ENUMS>(kind: K, value: unknown): EnumName<K> | undefined {
  const table = ENUMS[kind] as Record<string, number>;
  if (typeof value === 'string' && value in table) return value as EnumName<K>;
  if (typeof value === 'number') return Object.keys(table).find((k) => table[k] === value) as EnumName<K> | undefined;
  return undefined;
}

export interface FakeGcpVersion {
  readonly name: string;
  state: EnumName<'versionState'>;
  privateKey?: Buffer;
  /** GetPublicKey calls still to answer FAILED_PRECONDITION while the version is "being generated". */
  pendingPolls: number;
}

export interface FakeGcpKey {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly protectionLevel: EnumName<'protectionLevel'>;
  readonly importOnly: boolean;
  readonly createTime: Date;
  readonly versions: FakeGcpVersion[];
}

export interface FakeGcpKms {
  /** `http://127.0.0.1:PORT`: VAULT_GCP_KMS_ENDPOINT. */
  readonly url: string;
  /** The one key ring that exists: `projects/wallet-vault-test/locations/global/keyRings/wallet-vault`. */
  readonly keyRing: string;
  /** A bearer token the server accepts (give the client an auth client returning it). */
  readonly token: string;
  /** A service account whose self-signed JWTs the server accepts: write it to a file for GOOGLE_APPLICATION_CREDENTIALS. */
  readonly serviceAccount: { type: 'service_account'; project_id: string; client_email: string; private_key: string; private_key_id: string; client_id: string; token_uri: string };
  /** Every operation received, in order (`CreateCryptoKey`, `AsymmetricSign`, ...). */
  readonly calls: string[];
  readonly keys: Map<string, FakeGcpKey>;
  /** The next N requests answer 429 RESOURCE_EXHAUSTED (a quota). */
  throttleNext: number;
  /** The next N requests answer 503 UNAVAILABLE. */
  failNext: number;
  /** The next N requests that succeed are done, but answer 503 UNAVAILABLE (an answer lost on its way). */
  loseAnswerNext: number;
  /** GetPublicKey calls each new version answers FAILED_PRECONDITION (PENDING_GENERATION) before it is ready (default 1). */
  pendingPolls: number;
  /** Every answer is sent this many milliseconds late. */
  latencyMs: number;
  /** The version a key reference names. */
  version(name: string): FakeGcpVersion | undefined;
  close(): Promise<void>;
}

/**
 * A Cloud KMS-compatible server for tests: the REST surface of cloudkms.googleapis.com/v1 that
 * @google-cloud/kms uses with `fallback: 'rest'` (Google's paths, JSON field names, enum numbers when
 * asked with `$alt=json;enum-encoding=int`, bytes in base64, errors as `{error: {code, message, status}}`),
 * real secp256k1 keys and DER signatures. Like Cloud KMS it returns high-s signatures about half the
 * time, new versions start PENDING_GENERATION, and import jobs unwrap RSA_OAEP_4096_SHA256_AES_256.
 * Requests must carry `Authorization: Bearer` with the static token or a JWT signed by the service
 * account's key (what google-auth-library sends for a service account: a self-signed JWT, no token exchange).
 */
export async function startFakeGcpKms(): Promise<FakeGcpKms> {
  const keyRing = 'projects/wallet-vault-test/locations/global/keyRings/wallet-vault';
  const token = `ya29.fake-${randomBytes(12).toString('hex')}`;
  const saKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const saEmail = 'wallet-vault@wallet-vault-test.iam.gserviceaccount.com';
  const keys = new Map<string, FakeGcpKey>();
  const importJobs = new Map<string, { name: string; pendingPolls: number; protectionLevel: EnumName<'protectionLevel'> }>();
  const calls: string[] = [];
  const state = { throttleNext: 0, failNext: 0, loseAnswerNext: 0, pendingPolls: 1, latencyMs: 0 };

  const versionOf = (name: string): FakeGcpVersion | undefined => {
    const m = /^(.*)\/cryptoKeyVersions\/(\d+)$/.exec(name);
    return m ? keys.get(m[1]!)?.versions[Number(m[2]) - 1] : undefined;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const numeric = (url.searchParams.get('$alt') ?? '').includes('enum-encoding=int');
      const out = <K extends keyof typeof ENUMS>(kind: K, name: EnumName<K>) => (numeric ? (ENUMS[kind] as Record<string, number>)[name] : name);
      const reply = (status: number, body: object) => {
        if (status === 200 && state.loseAnswerNext > 0) {
          // Done, but the answer is lost on its way: the client sees a 503.
          state.loseAnswerNext--;
          [status, body] = [503, { error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } }];
        }
        const text = JSON.stringify(body);
        const send = () => {
          res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) });
          res.end(text);
        };
        // unref: an answer held back does not keep the process (a test's worker) alive.
        if (state.latencyMs > 0) setTimeout(send, state.latencyMs).unref();
        else send();
      };
      const error = (code: number, status: string, message: string) => reply(code, { error: { code, message, status } });
      const path = decodeURIComponent(url.pathname);
      const { operation, params } = route(req.method ?? 'GET', path);
      calls.push(operation);
      if (!authorized(String(req.headers.authorization ?? ''), token, saEmail, saKeys.publicKey)) {
        return error(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.');
      }
      if (state.throttleNext > 0) {
        state.throttleNext--;
        return error(429, 'RESOURCE_EXHAUSTED', "Quota exceeded for quota metric 'Cryptographic requests' and limit 'Cryptographic requests per minute'.");
      }
      if (state.failNext > 0) {
        state.failNext--;
        return error(503, 'UNAVAILABLE', 'The service is currently unavailable.');
      }
      let body: Record<string, unknown> = {};
      try {
        if (chunks.length > 0) body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      } catch {
        return error(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
      }
      const keyRingOk = (parent: string) => {
        if (parent === keyRing) return true;
        error(404, 'NOT_FOUND', `KeyRing ${parent} not found.`);
        return false;
      };
      const needVersion = (name: string) => {
        const v = versionOf(name);
        if (!v) error(404, 'NOT_FOUND', `${name} not found.`);
        return v;
      };
      const versionJson = (v: FakeGcpVersion, key: FakeGcpKey) => ({
        name: v.name,
        state: out('versionState', v.state),
        protectionLevel: out('protectionLevel', key.protectionLevel),
        algorithm: out('algorithm', 'EC_SIGN_SECP256K1_SHA256'),
        createTime: key.createTime.toISOString(),
      });
      const keyJson = (k: FakeGcpKey) => ({
        name: k.name,
        purpose: out('purpose', 'ASYMMETRIC_SIGN'),
        createTime: k.createTime.toISOString(),
        versionTemplate: { protectionLevel: out('protectionLevel', k.protectionLevel), algorithm: out('algorithm', 'EC_SIGN_SECP256K1_SHA256') },
        labels: k.labels,
        importOnly: k.importOnly,
        destroyScheduledDuration: '2592000s',
      });

      switch (operation) {
        case 'CreateCryptoKey': {
          if (!keyRingOk(params.parent!)) return;
          const id = url.searchParams.get('cryptoKeyId') ?? '';
          if (!/^[a-zA-Z0-9_-]{1,63}$/.test(id)) return error(400, 'INVALID_ARGUMENT', 'crypto_key_id must match [a-zA-Z0-9_-]{1,63}.');
          const name = `${keyRing}/cryptoKeys/${id}`;
          if (keys.has(name)) return error(409, 'ALREADY_EXISTS', `${name} already exists.`);
          const template = (body.versionTemplate ?? {}) as Record<string, unknown>;
          const protectionLevel = enumIn('protectionLevel', template.protectionLevel ?? 'SOFTWARE');
          if (enumIn('purpose', body.purpose) !== 'ASYMMETRIC_SIGN' || enumIn('algorithm', template.algorithm) !== 'EC_SIGN_SECP256K1_SHA256' || !protectionLevel) {
            return error(400, 'INVALID_ARGUMENT', 'this server holds only ASYMMETRIC_SIGN keys of algorithm EC_SIGN_SECP256K1_SHA256.');
          }
          const labels = (body.labels ?? {}) as Record<string, unknown>;
          for (const [k, v] of Object.entries(labels)) {
            // Cloud KMS's label rules: keys start with a lower-case letter; keys and values up to 63 of [a-z0-9_-].
            if (!/^[a-z][a-z0-9_-]{0,62}$/.test(k) || typeof v !== 'string' || !/^[a-z0-9_-]{0,63}$/.test(v)) return error(400, 'INVALID_ARGUMENT', `invalid label ${k}.`);
          }
          const skip = url.searchParams.get('skipInitialVersionCreation') === 'true';
          const importOnly = body.importOnly === true;
          if (importOnly && !skip) return error(400, 'INVALID_ARGUMENT', 'import_only keys must be created with skip_initial_version_creation.');
          const key: FakeGcpKey = { name, labels: labels as Record<string, string>, protectionLevel, importOnly, createTime: new Date(), versions: [] };
          if (!skip) key.versions.push({ name: `${name}/cryptoKeyVersions/1`, state: 'PENDING_GENERATION', privateKey: newSecp256k1Key(), pendingPolls: state.pendingPolls });
          keys.set(name, key);
          return reply(200, keyJson(key));
        }
        case 'ListCryptoKeys': {
          if (!keyRingOk(params.parent!)) return;
          let matches: (k: FakeGcpKey) => boolean;
          try {
            matches = parseFilter(url.searchParams.get('filter') ?? '');
          } catch (e) {
            return error(400, 'INVALID_ARGUMENT', `Invalid filter: ${(e as Error).message}`);
          }
          const all = [...keys.values()].filter(matches);
          const size = Math.min(Number(url.searchParams.get('pageSize') ?? 1000) || 1000, 1000);
          const start = Number(url.searchParams.get('pageToken') ?? 0);
          const page = all.slice(start, start + size);
          return reply(200, { cryptoKeys: page.map(keyJson), totalSize: all.length, ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}) });
        }
        case 'GetPublicKey': {
          const v = needVersion(params.name!);
          if (!v) return;
          if (v.pendingPolls > 0) {
            v.pendingPolls--;
            return error(400, 'FAILED_PRECONDITION', `${v.name} is not enabled, current state is: ${v.state}.`);
          }
          if (v.state === 'PENDING_GENERATION' || v.state === 'PENDING_IMPORT') v.state = 'ENABLED';
          if (v.state !== 'ENABLED') return error(400, 'FAILED_PRECONDITION', `${v.name} is not enabled, current state is: ${v.state}.`);
          const spki = Buffer.concat([SPKI_PREFIX, secp256k1.publicKeyCreate(v.privateKey!, false)]);
          const pem = `-----BEGIN PUBLIC KEY-----\n${spki.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PUBLIC KEY-----\n`;
          const key = keys.get(v.name.replace(/\/cryptoKeyVersions\/\d+$/, ''))!;
          return reply(200, { pem, algorithm: out('algorithm', 'EC_SIGN_SECP256K1_SHA256'), name: v.name, protectionLevel: out('protectionLevel', key.protectionLevel) });
        }
        case 'AsymmetricSign': {
          const v = needVersion(params.name!);
          if (!v) return;
          if (v.state !== 'ENABLED') return error(400, 'FAILED_PRECONDITION', `${v.name} is not enabled, current state is: ${v.state}.`);
          const sha256 = (body.digest as { sha256?: unknown } | undefined)?.sha256;
          if (body.data !== undefined || typeof sha256 !== 'string') return error(400, 'INVALID_ARGUMENT', 'digest.sha256 is required for EC_SIGN_SECP256K1_SHA256.');
          const digest = Buffer.from(sha256, 'base64');
          if (digest.length !== 32) return error(400, 'INVALID_ARGUMENT', 'The digest length is invalid for the algorithm.');
          const { signature } = secp256k1.ecdsaSign(digest, v.privateKey!);
          if (Math.random() < 0.5) {
            const s = BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`);
            signature.set(Buffer.from((N - s).toString(16).padStart(64, '0'), 'hex'), 32);
          }
          const der = Buffer.from(secp256k1.signatureExport(signature));
          const key = keys.get(v.name.replace(/\/cryptoKeyVersions\/\d+$/, ''))!;
          return reply(200, { signature: der.toString('base64'), name: v.name, verifiedDigestCrc32c: false, protectionLevel: out('protectionLevel', key.protectionLevel) });
        }
        case 'UpdateCryptoKeyVersion': {
          const v = needVersion(params.name!);
          if (!v) return;
          if (url.searchParams.get('updateMask') !== 'state') return error(400, 'INVALID_ARGUMENT', 'this server updates only state.');
          const to = enumIn('versionState', body.state);
          if (to !== 'ENABLED' && to !== 'DISABLED') return error(400, 'INVALID_ARGUMENT', 'state may only be ENABLED or DISABLED.');
          if (v.state !== 'ENABLED' && v.state !== 'DISABLED') return error(400, 'FAILED_PRECONDITION', `${v.name} is in state ${v.state}.`);
          v.state = to;
          return reply(200, versionJson(v, keys.get(v.name.replace(/\/cryptoKeyVersions\/\d+$/, ''))!));
        }
        case 'DestroyCryptoKeyVersion': {
          const v = needVersion(params.name!);
          if (!v) return;
          if (v.state !== 'ENABLED' && v.state !== 'DISABLED') return error(400, 'FAILED_PRECONDITION', `${v.name} is in state ${v.state}.`);
          v.state = 'DESTROY_SCHEDULED';
          return reply(200, versionJson(v, keys.get(v.name.replace(/\/cryptoKeyVersions\/\d+$/, ''))!));
        }
        case 'CreateImportJob': {
          if (!keyRingOk(params.parent!)) return;
          const id = url.searchParams.get('importJobId') ?? '';
          if (!/^[a-zA-Z0-9_-]{1,63}$/.test(id)) return error(400, 'INVALID_ARGUMENT', 'import_job_id must match [a-zA-Z0-9_-]{1,63}.');
          if (enumIn('importMethod', body.importMethod) !== 'RSA_OAEP_4096_SHA256_AES_256') return error(400, 'INVALID_ARGUMENT', 'this server offers only RSA_OAEP_4096_SHA256_AES_256.');
          const protectionLevel = enumIn('protectionLevel', body.protectionLevel);
          if (!protectionLevel) return error(400, 'INVALID_ARGUMENT', 'protection_level is required.');
          startWrappingKey();
          const name = `${keyRing}/importJobs/${id}`;
          if (importJobs.has(name)) return error(409, 'ALREADY_EXISTS', `${name} already exists.`);
          importJobs.set(name, { name, pendingPolls: state.pendingPolls, protectionLevel });
          return reply(200, { name, importMethod: out('importMethod', 'RSA_OAEP_4096_SHA256_AES_256'), protectionLevel: out('protectionLevel', protectionLevel), state: out('importJobState', 'PENDING_GENERATION') });
        }
        case 'GetImportJob': {
          const job = importJobs.get(params.name!);
          if (!job) return error(404, 'NOT_FOUND', `${params.name} not found.`);
          // PENDING_GENERATION while its wrapping key is made (as Cloud KMS does), and for pendingPolls reads.
          const pending = job.pendingPolls > 0 || !wrappingKey;
          if (job.pendingPolls > 0) job.pendingPolls--;
          return reply(200, {
            name: job.name,
            importMethod: out('importMethod', 'RSA_OAEP_4096_SHA256_AES_256'),
            protectionLevel: out('protectionLevel', job.protectionLevel),
            state: out('importJobState', pending ? 'PENDING_GENERATION' : 'ACTIVE'),
            ...(pending ? {} : { publicKey: { pem: wrappingKey!.pem } }),
          });
        }
        case 'ImportCryptoKeyVersion': {
          const key = keys.get(params.parent!);
          if (!key) return error(404, 'NOT_FOUND', `${params.parent} not found.`);
          const job = typeof body.importJob === 'string' ? importJobs.get(body.importJob) : undefined;
          if (!job || job.pendingPolls > 0 || !wrappingKey) return error(400, 'FAILED_PRECONDITION', 'the import job is not ACTIVE.');
          if (!key.importOnly) return error(400, 'FAILED_PRECONDITION', 'the CryptoKey is not import_only.');
          if (enumIn('algorithm', body.algorithm) !== 'EC_SIGN_SECP256K1_SHA256') return error(400, 'INVALID_ARGUMENT', 'algorithm must be EC_SIGN_SECP256K1_SHA256.');
          const wrapped = typeof body.wrappedKey === 'string' ? Buffer.from(body.wrappedKey, 'base64') : undefined;
          if (!wrapped || wrapped.length <= 512) return error(400, 'INVALID_ARGUMENT', 'wrapped_key is required.');
          let privateKey: Buffer;
          try {
            const aesKey = privateDecrypt({ key: wrappingKey.privateKey, padding: cryptoConstants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, wrapped.subarray(0, 512));
            const decipher = createDecipheriv('id-aes256-wrap-pad', aesKey, Buffer.from('a65959a6', 'hex'));
            const pkcs8 = Buffer.concat([decipher.update(wrapped.subarray(512)), decipher.final()]);
            const jwk = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
            if (jwk.crv !== 'secp256k1' || !jwk.d) throw new Error('not a secp256k1 key');
            privateKey = Buffer.from(jwk.d, 'base64url');
          } catch {
            return error(400, 'INVALID_ARGUMENT', 'The wrapped key material could not be unwrapped or parsed.');
          }
          const version: FakeGcpVersion = { name: `${key.name}/cryptoKeyVersions/${key.versions.length + 1}`, state: 'PENDING_IMPORT', privateKey, pendingPolls: state.pendingPolls };
          key.versions.push(version);
          return reply(200, { ...versionJson(version, key), importJob: job.name });
        }
        default:
          return error(404, 'NOT_FOUND', `no such method: ${req.method} ${path}`);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  // The knobs tests turn are the returned object's own fields: the handler reads them from `state`.
  return Object.assign(state, {
    url,
    keyRing,
    token,
    serviceAccount: {
      type: 'service_account' as const,
      project_id: 'wallet-vault-test',
      client_email: saEmail,
      private_key: saKeys.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      private_key_id: randomBytes(20).toString('hex'),
      client_id: '100000000000000000001',
      token_uri: `${url}/token`,
    },
    calls,
    keys,
    version: versionOf,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** The REST method a request names, by Cloud KMS's HTTP bindings (google/cloud/kms/v1/service.proto). */
function route(method: string, path: string): { operation: string; params: Record<string, string> } {
  const ring = 'projects/[^/]+/locations/[^/]+/keyRings/[^/]+';
  const key = `${ring}/cryptoKeys/[^/:]+`;
  const version = `${key}/cryptoKeyVersions/[^/:]+`;
  const table: [string, RegExp, string, string][] = [
    ['POST', new RegExp(`^/v1/(${ring})/cryptoKeys$`), 'CreateCryptoKey', 'parent'],
    ['GET', new RegExp(`^/v1/(${ring})/cryptoKeys$`), 'ListCryptoKeys', 'parent'],
    ['GET', new RegExp(`^/v1/(${version})/publicKey$`), 'GetPublicKey', 'name'],
    ['POST', new RegExp(`^/v1/(${version}):asymmetricSign$`), 'AsymmetricSign', 'name'],
    ['PATCH', new RegExp(`^/v1/(${version})$`), 'UpdateCryptoKeyVersion', 'name'],
    ['POST', new RegExp(`^/v1/(${version}):destroy$`), 'DestroyCryptoKeyVersion', 'name'],
    ['POST', new RegExp(`^/v1/(${ring})/importJobs$`), 'CreateImportJob', 'parent'],
    ['GET', new RegExp(`^/v1/(${ring}/importJobs/[^/:]+)$`), 'GetImportJob', 'name'],
    ['POST', new RegExp(`^/v1/(${key})/cryptoKeyVersions:import$`), 'ImportCryptoKeyVersion', 'parent'],
  ];
  for (const [m, pattern, operation, param] of table) {
    const match = m === method ? pattern.exec(path) : null;
    if (match) return { operation, params: { [param]: match[1]! } };
  }
  return { operation: `unknown ${method} ${path}`, params: {} };
}

/**
 * The filters this server understands, in Cloud KMS's syntax: terms `labels.K="V"` (or unquoted) and
 * `createTime<"RFC 3339"`, joined by AND or spaces. Anything else is refused as Cloud KMS refuses a bad filter.
 */
function parseFilter(filter: string): (k: FakeGcpKey) => boolean {
  const terms: ((k: FakeGcpKey) => boolean)[] = [];
  const term = /\s*(labels\.([a-z][a-z0-9_-]*)\s*=\s*(?:"([^"]*)"|([a-z0-9_-]*))|createTime\s*<\s*"([^"]+)")\s*(?:AND\s+|$)/y;
  let at = 0;
  while (at < filter.length) {
    term.lastIndex = at;
    const m = term.exec(filter);
    if (!m) throw new Error(`unexpected ${JSON.stringify(filter.slice(at, at + 20))}`);
    at = term.lastIndex;
    if (m[2] !== undefined) {
      const [label, value] = [m[2], m[3] ?? m[4] ?? ''];
      terms.push((k) => k.labels[label] === value);
    } else {
      const before = Date.parse(m[5]!);
      if (Number.isNaN(before)) throw new Error(`bad time ${m[5]}`);
      terms.push((k) => k.createTime.getTime() < before);
    }
  }
  return (k) => terms.every((t) => t(k));
}

/** The static token, or a JWT signed (RS256) by the service account's key, unexpired. */
function authorized(header: string, token: string, email: string, publicKey: KeyObject): boolean {
  const bearer = /^Bearer (.+)$/.exec(header)?.[1];
  if (!bearer) return false;
  if (bearer === token) return true;
  const parts = bearer.split('.');
  if (parts.length !== 3) return false;
  try {
    const verifier = createVerify('RSA-SHA256');
    verifier.update(`${parts[0]}.${parts[1]}`);
    if (!verifier.verify(publicKey, Buffer.from(parts[2]!, 'base64url'))) return false;
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString()) as { iss?: string; exp?: number };
    return claims.iss === email && typeof claims.exp === 'number' && claims.exp * 1000 > Date.now();
  } catch {
    return false;
  }
}

function newSecp256k1Key(): Buffer {
  for (;;) {
    const candidate = randomBytes(32);
    if (secp256k1.privateKeyVerify(candidate)) return candidate;
  }
}
