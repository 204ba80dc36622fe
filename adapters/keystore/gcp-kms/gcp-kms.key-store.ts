import { createHash, createCipheriv, createPrivateKey, publicEncrypt, randomBytes, randomUUID, constants as cryptoConstants } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { KeyManagementServiceClient } from '@google-cloud/kms';
import secp256k1 from 'secp256k1';
import { addressFromPublicKey } from '../../../src/domain/address.js';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import type { CreatedKey, KeyOwner, KeyStore, RecoverableSignature, StoredKey } from '../../../src/ports/key-store.port.js';
import { KEY_RING_NAME } from './key-ring.js';
import { completeSignature, parseDerSignature, parseSpkiPublicKey } from '../shared/secp256k1.js';

/** Where keys are generated: Cloud HSM (FIPS 140-2 level 3), or software (cheaper, for trials). */
export type GcpKmsProtectionLevel = 'HSM' | 'SOFTWARE';

/** A google-auth-library client the application already has (`new GoogleAuth(...).getClient()`, an OAuth2Client). */
export interface GcpAuthClient {
  getRequestHeaders(url?: string): Promise<unknown>;
}

/** Configuration of the `gcp-kms` key store. Credentials are the application default credentials unless given. */
export interface GcpKmsKeyStoreConfig {
  /** `projects/P/locations/L/keyRings/R`: the key ring the store creates its keys in. */
  readonly keyRing: string;
  /** Default HSM. */
  readonly protectionLevel?: GcpKmsProtectionLevel;
  /**
   * `VAULT_GCP_KMS_ENDPOINT`: a Cloud KMS endpoint other than cloudkms.googleapis.com (a private or
   * regional endpoint, a test server), as a URL: `https://host[:port]`, or `http://` for a test server.
   */
  readonly endpoint?: string;
  /** A client the application already has (its transport, credentials and retries); the settings above but keyRing and protectionLevel are then ignored. */
  readonly client?: KeyManagementServiceClient;
  /** A service account's key (client_email, private_key) instead of the application default credentials. */
  readonly credentials?: { readonly client_email: string; readonly private_key: string };
  /** A service account key file instead of the application default credentials. */
  readonly keyFilename?: string;
  /** An authenticated google-auth-library client instead of the application default credentials. */
  readonly authClient?: GcpAuthClient;
  /** Per-request timeout (ms, default 5000). */
  readonly requestTimeoutMs?: number;
  /** Attempts of one request the service refused for quota (429) or briefly failed, including the first (default 4). */
  readonly maxAttempts?: number;
  /** First backoff between attempts (ms, default 200; doubled each time, with jitter, at most 5 s). */
  readonly retryBaseDelayMs?: number;
  /** How long a new key or import job may stay PENDING_GENERATION (or PENDING_IMPORT) before create fails (ms, default 60000). */
  readonly generationTimeoutMs?: number;
  /** Told of each retry (the composition counts them in wallet_vault_keystore_retries_total). */
  readonly retried?: (reason: 'throttled' | 'unavailable') => void;
}

const STORE = 'gcp-kms';
const ALGORITHM = 'EC_SIGN_SECP256K1_SHA256';
/** Wrapping of imported key material: RSA-OAEP (SHA-256) of an ephemeral AES-256 key, AES key wrap with padding (RFC 5649) of the PKCS#8 key. */
const IMPORT_METHOD = 'RSA_OAEP_4096_SHA256_AES_256';
const PUBLIC_KEY_CACHE = 10_000;
/** A CryptoKeyVersion resource name in the configured form; the store's key references are these. */
const VERSION_NAME = /^projects\/[^/]+\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[a-zA-Z0-9_-]{1,63}\/cryptoKeyVersions\/\d+$/;

/** gRPC status codes the client's errors carry (REST answers are mapped to them by google-gax). */
const Code = { DEADLINE_EXCEEDED: 4, NOT_FOUND: 5, ALREADY_EXISTS: 6, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9, UNAVAILABLE: 14 } as const;

/** Label keys on every key (lower-case letters, digits, `_` and `-`: Cloud KMS's label rules). */
export const GCP_LABELS = {
  marker: 'wallet_vault',
  account: 'wallet_vault_account',
  vault: 'wallet_vault_vault',
  wallet: 'wallet_vault_wallet',
  deployment: 'wallet_vault_deployment',
} as const;

const unavailable = (problem: string, cause?: unknown) => new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, `key store ${STORE}: ${problem}`, { cause });

/**
 * Keys of algorithm EC_SIGN_SECP256K1_SHA256 that never leave Cloud KMS, one CryptoKey with one version
 * per wallet; the key reference is the version's resource name. Cloud KMS signs the digest given in its
 * `sha256` field as is (it cannot tell a keccak digest from a SHA-256 one) and returns a DER signature
 * with any s, so the shared helpers normalise it to low-s and find v against the version's public key,
 * which is cached because every sign needs it.
 */
export class GcpKmsKeyStore implements KeyStore {
  readonly name = STORE;
  private readonly client: KeyManagementServiceClient;
  /** A client the application handed in is the application's to close, not this store's. */
  private readonly ownsClient: boolean;
  private readonly publicKeys = new Map<string, Uint8Array>();
  private readonly keyRing: string;
  private readonly protectionLevel: GcpKmsProtectionLevel;
  private readonly timeout: number;
  private readonly maxAttempts: number;
  private readonly retryBaseDelayMs: number;
  private readonly generationTimeoutMs: number;

  constructor(private readonly config: GcpKmsKeyStoreConfig) {
    if (!KEY_RING_NAME.test(config.keyRing)) throw new TypeError('keyRing must be projects/PROJECT/locations/LOCATION/keyRings/KEY_RING');
    this.keyRing = config.keyRing;
    this.protectionLevel = config.protectionLevel ?? 'HSM';
    this.timeout = config.requestTimeoutMs ?? 5000;
    this.maxAttempts = config.maxAttempts ?? 4;
    this.retryBaseDelayMs = config.retryBaseDelayMs ?? 200;
    this.generationTimeoutMs = config.generationTimeoutMs ?? 60_000;
    this.ownsClient = config.client === undefined;
    this.client = config.client ?? new KeyManagementServiceClient({ fallback: 'rest', ...endpointOptions(config.endpoint), ...authOptions(config) });
  }

  async create(owner?: KeyOwner): Promise<CreatedKey> {
    const key = await this.createCryptoKey(owner, false);
    const keyRef = `${key}/cryptoKeyVersions/1`;
    try {
      return { keyRef, publicKey: await this.awaitPublicKey(keyRef) };
    } catch (error) {
      // A key no wallet will ever name: schedule it away before reporting the failure.
      await this.destroy(keyRef).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Imports through an import job of its own (Cloud KMS generates the job's RSA wrapping key in the HSM):
   * the key goes in as PKCS#8, wrapped by RSA_OAEP_4096_SHA256_AES_256, into a CryptoKey created import-only.
   * The copies made here (PKCS#8, the AES key) are zeroed; the caller zeroes `privateKey`.
   */
  async importKey(privateKey: Uint8Array, owner?: KeyOwner): Promise<CreatedKey> {
    if (privateKey.length !== 32 || !secp256k1.privateKeyVerify(privateKey)) {
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'privateKey: not a secp256k1 private key');
    }
    const expected = secp256k1.publicKeyCreate(privateKey, false);
    const job = await this.activeImportJob();
    const key = await this.createCryptoKey(owner, true);
    const wrapped = wrapForImport(privateKey, expected, job.pem);
    const version = await this.call('ImportCryptoKeyVersion', () =>
      this.client.importCryptoKeyVersion({ parent: key, algorithm: ALGORITHM, importJob: job.name, wrappedKey: wrapped }, this.callOptions()),
    );
    const keyRef = version[0].name;
    if (!keyRef || !VERSION_NAME.test(keyRef)) throw unavailable('ImportCryptoKeyVersion returned no version name');
    const publicKey = await this.awaitPublicKey(keyRef);
    if (!Buffer.from(publicKey).equals(Buffer.from(expected))) {
      await this.destroy(keyRef).catch(() => undefined);
      throw unavailable('the imported key answers with another public key');
    }
    return { keyRef, publicKey };
  }

  async sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    const publicKey = await this.publicKey(keyRef);
    const [signed] = await this.call('AsymmetricSign', () => this.client.asymmetricSign({ name: keyRef, digest: { sha256: digest } }, this.callOptions()));
    if (!signed.signature || signed.signature.length === 0) throw unavailable('AsymmetricSign returned no signature');
    try {
      return completeSignature(digest, parseDerSignature(signed.signature as Uint8Array), publicKey);
    } catch (error) {
      throw unavailable('AsymmetricSign returned a signature that does not verify against the key', error);
    }
  }

  /**
   * Disable, then schedule destruction (the key's destroy-scheduled duration, Google's default 30 days
   * unless the organisation's policy sets another): a disabled version signs nothing from now on. Only
   * the expiry purge of this deployment's wallets and the operator's audited command call this.
   */
  async destroy(keyRef: string): Promise<void> {
    this.publicKeys.delete(keyRef);
    if (!VERSION_NAME.test(keyRef)) return; // never a key of this store: nothing to destroy
    const steps: [string, () => Promise<unknown>][] = [
      ['UpdateCryptoKeyVersion', () => this.client.updateCryptoKeyVersion({ cryptoKeyVersion: { name: keyRef, state: 'DISABLED' }, updateMask: { paths: ['state'] } }, this.callOptions())],
      ['DestroyCryptoKeyVersion', () => this.client.destroyCryptoKeyVersion({ name: keyRef }, this.callOptions())],
    ];
    for (const [operation, step] of steps) {
      try {
        await this.withRetries(step);
      } catch (error) {
        // NOT_FOUND: no such version; FAILED_PRECONDITION: already scheduled for destruction or destroyed.
        const code = codeOf(error);
        if (code !== Code.NOT_FOUND && code !== Code.FAILED_PRECONDITION) throw unavailable(`could not destroy a key: ${operation} failed (${reason(error)})`, error);
      }
    }
  }

  async ping(): Promise<void> {
    await this.call('ListCryptoKeys', () => this.client.listCryptoKeys({ parent: this.keyRing, pageSize: 1 }, { ...this.callOptions(), autoPaginate: false }));
  }

  /**
   * The key ring's keys labelled with this deployment and created before `createdBefore` (a filter Cloud
   * KMS applies), each with the address of its public key. Keys whose version no longer gives its public
   * key (disabled, scheduled for destruction, destroyed) are gone already and not listed.
   */
  async listKeys(query: { readonly deploymentId: string; readonly createdBefore: Date }): Promise<StoredKey[]> {
    const filter = `labels.${GCP_LABELS.deployment}="${labelValue(query.deploymentId, true)}" AND createTime<"${query.createdBefore.toISOString()}"`;
    const keys: StoredKey[] = [];
    let pageToken: string | undefined;
    do {
      const [page, , response] = await this.call('ListCryptoKeys', () =>
        this.client.listCryptoKeys({ parent: this.keyRing, filter, pageSize: 500, ...(pageToken ? { pageToken } : {}) }, { ...this.callOptions(), autoPaginate: false }),
      );
      for (const key of page) {
        if (!key.name || key.labels?.[GCP_LABELS.deployment] !== labelValue(query.deploymentId, true)) continue;
        const keyRef = `${key.name}/cryptoKeyVersions/1`;
        let publicKey: Uint8Array;
        try {
          publicKey = await this.publicKey(keyRef);
        } catch (error) {
          const code = codeOf((error as { cause?: unknown }).cause);
          if (code === Code.NOT_FOUND || code === Code.FAILED_PRECONDITION) continue;
          throw error;
        }
        keys.push({ keyRef, address: addressOf(publicKey), vaultId: key.labels?.[GCP_LABELS.vault] ?? null });
      }
      pageToken = response?.nextPageToken || undefined;
    } while (pageToken);
    return keys;
  }

  async close(): Promise<void> {
    this.publicKeys.clear();
    if (this.ownsClient) await this.client.close();
  }

  /** Creates the wallet's CryptoKey (with its first version unless `importOnly`) and returns its name. */
  private async createCryptoKey(owner: KeyOwner | undefined, importOnly: boolean): Promise<string> {
    const cryptoKeyId = `wallet-vault-${randomUUID()}`;
    const name = `${this.keyRing}/cryptoKeys/${cryptoKeyId}`;
    let attempted = false;
    await this.call('CreateCryptoKey', () => {
      const again = attempted;
      attempted = true;
      return this.client
        .createCryptoKey(
          {
            parent: this.keyRing,
            cryptoKeyId,
            skipInitialVersionCreation: importOnly,
            cryptoKey: {
              purpose: 'ASYMMETRIC_SIGN',
              versionTemplate: { algorithm: ALGORITHM, protectionLevel: this.protectionLevel },
              labels: gcpLabels(owner),
              ...(importOnly ? { importOnly: true } : {}),
            },
          },
          this.callOptions(),
        )
        .catch((error: unknown) => {
          // A retry after an answer lost in transit finds the key the first attempt made: ours (the id is random).
          if (again && codeOf(error) === Code.ALREADY_EXISTS) return [{ name }];
          throw error;
        });
    });
    return name;
  }

  /** A new import job once Cloud KMS has generated its wrapping key (PENDING_GENERATION, then ACTIVE). */
  private async activeImportJob(): Promise<{ name: string; pem: string }> {
    const [job] = await this.call('CreateImportJob', () =>
      this.client.createImportJob(
        { parent: this.keyRing, importJobId: `wallet-vault-import-${randomUUID()}`, importJob: { importMethod: IMPORT_METHOD, protectionLevel: this.protectionLevel } },
        this.callOptions(),
      ),
    );
    const name = job.name;
    if (!name) throw unavailable('CreateImportJob returned no name');
    return this.untilReady('import job', async () => {
      const [current] = await this.call('GetImportJob', () => this.client.getImportJob({ name }, this.callOptions()));
      if (current.state === 'ACTIVE' && current.publicKey?.pem) return { name, pem: current.publicKey.pem };
      if (current.state !== 'PENDING_GENERATION') throw unavailable(`import job ${name} is ${String(current.state)}`);
      return undefined;
    });
  }

  /** The public key of a version just created or imported, waiting while Cloud KMS still generates or imports it. */
  private awaitPublicKey(keyRef: string): Promise<Uint8Array> {
    return this.untilReady('key', async () => {
      try {
        return await this.publicKey(keyRef);
      } catch (error) {
        // FAILED_PRECONDITION: the version is PENDING_GENERATION or PENDING_IMPORT.
        if (codeOf((error as { cause?: unknown }).cause) === Code.FAILED_PRECONDITION) return undefined;
        throw error;
      }
    });
  }

  private async untilReady<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + this.generationTimeoutMs;
    for (let wait = 50; ; wait = Math.min(wait * 2, 2000)) {
      const ready = await attempt();
      if (ready !== undefined) return ready;
      if (Date.now() + wait > deadline) throw unavailable(`the ${what} was still being generated after ${this.generationTimeoutMs} ms`);
      await sleep(wait);
    }
  }

  private async publicKey(keyRef: string): Promise<Uint8Array> {
    const cached = this.publicKeys.get(keyRef);
    if (cached) return cached;
    if (!VERSION_NAME.test(keyRef)) throw unavailable('not a key of this store (a key reference is a CryptoKeyVersion name)');
    const [answer] = await this.call('GetPublicKey', () => this.client.getPublicKey({ name: keyRef }, this.callOptions()));
    if (answer.algorithm !== ALGORITHM || !answer.pem) throw unavailable(`key ${keyRef} is not an ${ALGORITHM} key`);
    const key = parseSpkiPublicKey(pemBody(answer.pem));
    if (this.publicKeys.size >= PUBLIC_KEY_CACHE) this.publicKeys.delete(this.publicKeys.keys().next().value as string);
    this.publicKeys.set(keyRef, key);
    return key;
  }

  /** The client's own retries are off: this store retries (and reports) quota refusals and brief failures itself, and bounds each request. */
  private callOptions() {
    return { timeout: this.timeout, retry: { retryCodes: [] as number[] } };
  }

  private async call<T>(operation: string, send: () => Promise<T>): Promise<T> {
    try {
      return await this.withRetries(send);
    } catch (error) {
      throw unavailable(`${operation} failed (${reason(error)})`, error);
    }
  }

  /**
   * One request, bounded by requestTimeoutMs: over REST the client library does not apply its `timeout`
   * (the auth client's fetch has none), so an endpoint that accepts and never answers would hold the
   * request for good. The call is cancelled (its fetch aborted) and fails as DEADLINE_EXCEEDED.
   */
  private bounded<T>(send: () => Promise<T>): Promise<T> {
    const pending = send();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        (pending as { cancel?: () => void }).cancel?.();
        reject(Object.assign(new Error(`no answer within ${this.timeout} ms`), { code: Code.DEADLINE_EXCEEDED }));
      }, this.timeout);
    });
    return Promise.race([pending, deadline]).finally(() => clearTimeout(timer));
  }

  /**
   * RESOURCE_EXHAUSTED (HTTP 429, a quota) and UNAVAILABLE / DEADLINE_EXCEEDED are tried again with
   * exponential backoff and full jitter, each retry reported; other errors are final at once.
   */
  private async withRetries<T>(send: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.bounded(send);
      } catch (error) {
        const code = codeOf(error);
        const why = code === Code.RESOURCE_EXHAUSTED ? 'throttled' : code === Code.UNAVAILABLE || code === Code.DEADLINE_EXCEEDED ? 'unavailable' : undefined;
        if (!why || attempt >= this.maxAttempts) throw error;
        this.config.retried?.(why);
        await sleep(Math.random() * Math.min(5000, this.retryBaseDelayMs * 2 ** (attempt - 1)));
      }
    }
  }
}

/** The client options for an endpoint URL: host, port and (for a test server) plain http. */
function endpointOptions(endpoint: string | undefined): { apiEndpoint?: string; port?: number; protocol?: string } {
  if (!endpoint) return {};
  const url = new URL(endpoint);
  const secure = url.protocol === 'https:';
  return { apiEndpoint: url.hostname, port: url.port ? Number(url.port) : secure ? 443 : 80, protocol: secure ? 'https' : 'http' };
}

function authOptions(config: GcpKmsKeyStoreConfig): Record<string, unknown> {
  if (config.authClient) return { authClient: config.authClient };
  if (config.credentials) return { credentials: { client_email: config.credentials.client_email, private_key: config.credentials.private_key } };
  if (config.keyFilename) return { keyFilename: config.keyFilename };
  return {}; // application default credentials
}

/**
 * `wallet_vault=wallet` on every key, and the account, vault and wallet
 * the key belongs to and the deployment that created it (the orphan sweep lists only its own). A value
 * outside Cloud KMS's label rules (63 lower-case letters, digits, `_`, `-`) is left out, except the
 * deployment, which is then recorded as `h` and 62 hex digits of its SHA-256 (compared, never read).
 */
export function gcpLabels(owner: KeyOwner | undefined): Record<string, string> {
  const labels: Record<string, string> = { [GCP_LABELS.marker]: 'wallet' };
  if (!owner) return labels;
  const put = (key: string, value: string) => {
    const v = labelValue(value, false);
    if (v !== undefined) labels[key] = v;
  };
  put(GCP_LABELS.account, owner.accountId);
  put(GCP_LABELS.vault, owner.vaultId);
  put(GCP_LABELS.wallet, owner.walletId);
  if (owner.deploymentId) labels[GCP_LABELS.deployment] = labelValue(owner.deploymentId, true);
  return labels;
}

function labelValue(value: string, hashed: true): string;
function labelValue(value: string, hashed: false): string | undefined;
function labelValue(value: string, hashed: boolean): string | undefined {
  if (/^[a-z0-9_-]{1,63}$/.test(value)) return value;
  return hashed ? `h${createHash('sha256').update(value).digest('hex').slice(0, 62)}` : undefined;
}

/**
 * PKCS#8 of the key, wrapped as RSA_OAEP_4096_SHA256_AES_256 asks: an ephemeral AES-256 key wrapped by
 * RSA-OAEP (SHA-256, MGF1 SHA-256) under the job's public key, followed by the PKCS#8 wrapped by that
 * AES key (AES key wrap with padding, RFC 5649).
 */
function wrapForImport(privateKey: Uint8Array, publicKey: Uint8Array, jobPem: string): Buffer {
  const pkcs8 = createPrivateKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'secp256k1',
      d: Buffer.from(privateKey).toString('base64url'),
      x: Buffer.from(publicKey.subarray(1, 33)).toString('base64url'),
      y: Buffer.from(publicKey.subarray(33, 65)).toString('base64url'),
    },
  }).export({ format: 'der', type: 'pkcs8' });
  const aesKey = randomBytes(32);
  try {
    const cipher = createCipheriv('id-aes256-wrap-pad', aesKey, Buffer.from('a65959a6', 'hex'));
    const wrappedKey = Buffer.concat([cipher.update(pkcs8), cipher.final()]);
    const wrappedAes = publicEncrypt({ key: jobPem, padding: cryptoConstants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, aesKey);
    return Buffer.concat([wrappedAes, wrappedKey]);
  } finally {
    aesKey.fill(0);
    pkcs8.fill(0);
  }
}

function pemBody(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, ''), 'base64');
}

const addressOf = (publicKey: Uint8Array) => addressFromPublicKey(publicKey).toLowerCase();

/** The gRPC status names of google.rpc.Code this store tells apart, and their numbers. */
const STATUS: Record<string, number> = { DEADLINE_EXCEEDED: 4, NOT_FOUND: 5, ALREADY_EXISTS: 6, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9, UNAVAILABLE: 14 };
/** HTTP statuses that name one of them without the body's help. */
const HTTP_STATUS: Record<number, number> = { 404: 5, 409: 6, 429: 8, 502: 14, 503: 14, 504: 4 };
/** Network failures a retry may get past. */
const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'UND_ERR_SOCKET']);

/** Google's error body (`{"error": {"code", "message", "status"}}`), which the REST transport leaves as the error's message. */
function googleError(error: unknown): { status?: string; message?: string } | undefined {
  const message = (error as { message?: unknown } | undefined)?.message;
  if (typeof message !== 'string' || !message.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(message) as { error?: { status?: unknown; message?: unknown } };
    const e = parsed.error;
    return e ? { status: typeof e.status === 'string' ? e.status : undefined, message: typeof e.message === 'string' ? e.message : undefined } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The gRPC status of a failed call: over REST the auth client's fetch rejects a non-2xx answer with the
 * HTTP status and Google's error body; over gRPC (a client handed in) the error carries the code.
 */
function codeOf(error: unknown): number | undefined {
  const e = error as { code?: unknown; status?: unknown; response?: { status?: unknown } } | undefined;
  if (!e) return undefined;
  const body = googleError(e);
  if (body?.status && body.status in STATUS) return STATUS[body.status];
  const http = typeof e.status === 'number' ? e.status : typeof e.response?.status === 'number' ? e.response.status : undefined;
  if (http !== undefined) return HTTP_STATUS[http];
  if (typeof e.code === 'number' && e.code < 20) return e.code;
  if (typeof e.code === 'string' && NETWORK_ERRORS.has(e.code)) return Code.UNAVAILABLE;
  return undefined;
}

/** The status and a short message of the client's error; never credentials, which the client does not put in messages. */
function reason(error: unknown): string {
  const body = googleError(error);
  const e = error as { code?: unknown; message?: string };
  const message = body ? [body.status, body.message].filter(Boolean).join(': ') : (e.message ?? '').split('\n')[0]!;
  return message.slice(0, 200) || (e.code !== undefined ? `code ${String(e.code)}` : 'unknown error');
}
