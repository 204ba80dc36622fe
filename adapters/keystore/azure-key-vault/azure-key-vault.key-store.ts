import { randomUUID } from 'node:crypto';
import type { TokenCredential } from '@azure/identity';
import { KeyClient, type CryptographyClient, type KeyVaultKey } from '@azure/keyvault-keys';
import secp256k1 from 'secp256k1';
import { addressFromPublicKey } from '../../../src/domain/address.js';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import type { CreatedKey, KeyOwner, KeyStore, RecoverableSignature, StoredKey } from '../../../src/ports/key-store.port.js';
import { completeSignature, publicKeyOf } from '../shared/secp256k1.js';

/** `EC-HSM`: the private key lives in an HSM (Premium vaults, Managed HSM); `EC`: in software (any vault). */
export type AzureKeyType = 'EC' | 'EC-HSM';

/** Why a request was sent again: the service refused it for quota (429) or briefly failed (5xx). */
export type AzureRetryReason = 'throttled' | 'unavailable';

/** Configuration of the `azure-key-vault` key store (the factory in index.ts checks it). */
export interface AzureKeyVaultKeyStoreConfig {
  /** `https://<name>.vault.azure.net` or `https://<name>.managedhsm.azure.net`. */
  readonly vaultUrl: string;
  /** Who the store acts as (the factory defaults to DefaultAzureCredential). */
  readonly credential: TokenCredential;
  /** Default `EC-HSM`. */
  readonly keyType?: AzureKeyType;
  /** Bound on one attempt of one request (ms, default 5000). */
  readonly requestTimeoutMs?: number;
  /** Attempts of one operation, the first included, when the service answers 429 or 5xx (default 4). */
  readonly maxAttempts?: number;
  /** First backoff when the answer carries no Retry-After (ms, default 250; doubled each attempt, with jitter). */
  readonly retryBaseDelayMs?: number;
  /** The longest wait before a retry (ms, default 10000): a Retry-After beyond it fails the operation at once. */
  readonly maxRetryDelayMs?: number;
  /** The SDK's own option: accept a challenge whose resource is not the vault's domain (private link with a custom domain). */
  readonly disableChallengeResourceVerification?: boolean;
  /** Send requests over http:// (the factory allows it only with allowHttp: a loopback stand-in). */
  readonly allowInsecureConnection?: boolean;
  /** Called before each retry (the composition counts them in wallet_vault_keystore_retries_total). */
  readonly onRetry?: (reason: AzureRetryReason) => void;
}

const STORE = 'azure-key-vault';
const KEY_CACHE = 10_000;
/** Tag names (Key Vault tags are free-form; hyphens keep them valid as Azure resource tags too). */
export const AZURE_TAGS = {
  marker: 'wallet-vault',
  account: 'wallet-vault-account',
  vault: 'wallet-vault-vault',
  wallet: 'wallet-vault-wallet',
  deployment: 'wallet-vault-deployment',
} as const;

const unavailable = (problem: string, cause?: unknown) => new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, `key store ${STORE}: ${problem}`, { cause });

interface CachedKey {
  readonly publicKey: Uint8Array;
  /** The SDK's client for this key version; its first operation reads the key (a GET) before signing. */
  readonly crypto: CryptographyClient;
  /** The first sign through `crypto`: the signs that arrive meanwhile wait for it, so only it reads the key. */
  first?: Promise<unknown>;
}

/**
 * Keys of curve P-256K created in (or imported into) Azure Key Vault, one Key Vault key per wallet, that
 * never leave it. Key Vault signs the 32-byte digest as is (ES256K) and returns r‖s with any s, so the
 * shared helpers normalise it to low-s and find v against the key's public key. The key reference is
 * `<key name>/<key version>`: a new version made in the portal never changes which key a wallet signs with.
 *
 * Retries are this store's, not the SDK's (whose policy skips a 429 without Retry-After): 429 and 5xx
 * answers are retried with backoff up to maxAttempts, each reported through onRetry.
 */
export class AzureKeyVaultKeyStore implements KeyStore {
  readonly name = STORE;
  private readonly client: KeyClient;
  private readonly keyType: AzureKeyType;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly keys = new Map<string, CachedKey>();
  private readonly loading = new Map<string, Promise<CachedKey>>();

  constructor(private readonly config: AzureKeyVaultKeyStoreConfig) {
    this.keyType = config.keyType ?? 'EC-HSM';
    this.timeoutMs = config.requestTimeoutMs ?? 5000;
    this.maxAttempts = config.maxAttempts ?? 4;
    this.baseDelayMs = config.retryBaseDelayMs ?? 250;
    this.maxDelayMs = config.maxRetryDelayMs ?? 10_000;
    this.client = new KeyClient(config.vaultUrl, config.credential, {
      retryOptions: { maxRetries: 0 },
      disableChallengeResourceVerification: config.disableChallengeResourceVerification,
      allowInsecureConnection: config.allowInsecureConnection,
      userAgentOptions: { userAgentPrefix: 'wallet-vault' },
    });
  }

  async create(owner?: KeyOwner): Promise<CreatedKey> {
    const created = await this.call('create key', (options) =>
      this.client.createEcKey(keyName(), { ...options, hsm: this.keyType === 'EC-HSM', curve: 'P-256K', keyOps: ['sign', 'verify'], tags: azureTags(owner) }),
    );
    return this.remember(created);
  }

  /**
   * Key Vault's import (PUT /keys/{name}) of the key as a JWK. `privateKey` goes to the SDK as is (a view,
   * no copy of ours); the SDK copies it into a Buffer to base64url it into the JSON body, copies only
   * the garbage collector frees (docs/keystores.md says so).
   */
  async importKey(privateKey: Uint8Array, owner?: KeyOwner): Promise<CreatedKey> {
    if (privateKey.length !== 32 || !secp256k1.privateKeyVerify(privateKey)) {
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, `key store ${STORE}: the imported key is not a secp256k1 private key`);
    }
    const publicKey = publicKeyOf(privateKey);
    const imported = await this.call('import key', (options) =>
      this.client.importKey(
        keyName(),
        { kty: 'EC', crv: 'P-256K', keyOps: ['sign', 'verify'], d: privateKey, x: publicKey.subarray(1, 33), y: publicKey.subarray(33) },
        { ...options, hardwareProtected: this.keyType === 'EC-HSM', tags: azureTags(owner) },
      ),
    );
    const created = this.remember(imported);
    if (!Buffer.from(created.publicKey).equals(Buffer.from(publicKey))) throw unavailable(`import key returned another public key for ${created.keyRef}`);
    return created;
  }

  async sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    const key = await this.key(keyRef);
    if (key.first) await key.first.catch(() => undefined);
    const signing = this.call('sign', (options) => key.crypto.sign('ES256K', digest, options));
    key.first ??= signing;
    const signed = await signing;
    const raw = signed.result;
    if (raw?.length !== 64) throw unavailable(`sign returned ${raw?.length ?? 0} bytes, not r‖s (64)`);
    try {
      return completeSignature(digest, { r: raw.subarray(0, 32), s: raw.subarray(32) }, key.publicKey);
    } catch (error) {
      throw unavailable('sign returned a signature that does not verify against the key', error);
    }
  }

  /**
   * As for AWS KMS: disable the key (it signs nothing from now on), then delete it, which in a vault with
   * soft delete (every vault since 2020) schedules its purge at the end of the vault's retention period
   * and leaves it recoverable until then. Never purges. A key already gone counts as done.
   */
  async destroy(keyRef: string): Promise<void> {
    const { name, version } = parseKeyRef(keyRef);
    this.keys.delete(keyRef);
    const steps: [string, (options: RequestOptions) => Promise<unknown>][] = [
      ['disable key', (options) => this.client.updateKeyProperties(name, version, { ...options, enabled: false })],
      ['delete key', (options) => this.client.beginDeleteKey(name, options)],
    ];
    for (const [operation, step] of steps) {
      try {
        await this.call(operation, step);
      } catch (error) {
        if (statusOf((error as { cause?: unknown }).cause) !== 404) throw error;
      }
    }
  }

  async ping(): Promise<void> {
    await this.call('list keys', (options) => this.client.listPropertiesOfKeys(options).byPage({ maxPageSize: 1 }).next());
  }

  /**
   * This deployment's keys (tag wallet-vault-deployment), created before `createdBefore`. The listing
   * carries no key material, so each key found is read once for its address.
   */
  async listKeys(query: { readonly deploymentId: string; readonly createdBefore: Date }): Promise<StoredKey[]> {
    const names: { name: string; vaultId: string | null }[] = [];
    await this.call('list keys', async (options) => {
      names.length = 0;
      for await (const p of this.client.listPropertiesOfKeys(options)) {
        if (p.tags?.[AZURE_TAGS.deployment] !== query.deploymentId) continue;
        if (!p.createdOn || p.createdOn.getTime() >= query.createdBefore.getTime()) continue;
        names.push({ name: p.name, vaultId: p.tags[AZURE_TAGS.vault] ?? null });
      }
    });
    const stored: StoredKey[] = [];
    for (const { name, vaultId } of names) {
      const key = await this.call('get key', (options) => this.client.getKey(name, options));
      const { keyRef, publicKey } = keyOf(key);
      stored.push({ keyRef, address: addressOf(publicKey), vaultId });
    }
    return stored;
  }

  async close(): Promise<void> {
    this.keys.clear();
  }

  private remember(key: KeyVaultKey): CreatedKey {
    const created = keyOf(key);
    this.cache(created.keyRef, created.publicKey);
    return created;
  }

  /** The cached key, or its one read in flight: signs arriving together after a restart read it once. */
  private key(keyRef: string): Promise<CachedKey> {
    const cached = this.keys.get(keyRef);
    if (cached) return Promise.resolve(cached);
    let loading = this.loading.get(keyRef);
    if (!loading) {
      const { name, version } = parseKeyRef(keyRef);
      loading = this.call('get key', (options) => this.client.getKey(name, { ...options, version }))
        .then((found) => this.cache(keyRef, keyOf(found).publicKey))
        .finally(() => this.loading.delete(keyRef));
      this.loading.set(keyRef, loading);
    }
    return loading;
  }

  private cache(keyRef: string, publicKey: Uint8Array): CachedKey {
    const { name, version } = parseKeyRef(keyRef);
    const entry = { publicKey, crypto: this.client.getCryptographyClient(name, { keyVersion: version }) };
    if (this.keys.size >= KEY_CACHE) this.keys.delete(this.keys.keys().next().value as string);
    this.keys.set(keyRef, entry);
    return entry;
  }

  /** One operation, sent again after a 429 or 5xx with backoff (Retry-After when the service gives one). */
  private async call<T>(operation: string, send: (options: RequestOptions) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await send({ requestOptions: { timeout: this.timeoutMs } });
      } catch (error) {
        const status = statusOf(error);
        const why: AzureRetryReason | undefined = status === 429 ? 'throttled' : status !== undefined && RETRIED_5XX.has(status) ? 'unavailable' : undefined;
        const wait = why && attempt < this.maxAttempts ? this.delayBefore(attempt, error) : undefined;
        if (wait === undefined) throw unavailable(`${operation} failed (${reason(error)})`, error);
        this.config.onRetry?.(why!);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** The wait before attempt `attempt + 1`, or undefined when the service asks for more than maxRetryDelayMs. */
  private delayBefore(attempt: number, error: unknown): number | undefined {
    const asked = retryAfterMs(error);
    if (asked !== undefined) return asked <= this.maxDelayMs ? asked : undefined;
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }
}

type RequestOptions = { requestOptions: { timeout: number } };

const RETRIED_5XX = new Set([500, 502, 503, 504]);

/** A fresh Key Vault key name (1-127 of [0-9a-zA-Z-]); the wallet is named by tags, not by the key's name. */
const keyName = () => `wallet-vault-${randomUUID()}`;

function parseKeyRef(keyRef: string): { name: string; version: string } {
  const match = /^([0-9a-zA-Z-]{1,127})\/([0-9a-zA-Z]{1,64})$/.exec(keyRef);
  if (!match) throw unavailable('the key reference is not <key name>/<key version> of this store');
  return { name: match[1]!, version: match[2]! };
}

/** The key reference and 65-byte public key of a key as Key Vault returns it; refuses any other kind of key. */
function keyOf(key: KeyVaultKey): CreatedKey {
  const jwk = key.key;
  const version = key.properties.version;
  if (!jwk || (jwk.kty !== 'EC' && jwk.kty !== 'EC-HSM') || jwk.crv !== 'P-256K' || !jwk.x || !jwk.y || !version) {
    throw unavailable(`key ${key.name} is not an EC key on curve P-256K`);
  }
  const point = new Uint8Array(65);
  point[0] = 0x04;
  point.set(jwk.x, 33 - jwk.x.length);
  point.set(jwk.y, 65 - jwk.y.length);
  try {
    return { keyRef: `${key.name}/${version}`, publicKey: secp256k1.publicKeyConvert(point, false) };
  } catch (error) {
    throw unavailable(`key ${key.name} has a public key that is not on secp256k1`, error);
  }
}

const addressOf = (publicKey: Uint8Array) => addressFromPublicKey(publicKey).toLowerCase();

/**
 * `wallet-vault=wallet` on every key (a role assignment condition or an operator's filter can rely on it),
 * the account, vault and wallet the key belongs to, and the deployment that created it, so the orphan
 * sweep of one deployment lists only its own keys in a vault several deployments share.
 */
export function azureTags(owner: KeyOwner | undefined): Record<string, string> {
  const tags: Record<string, string> = { [AZURE_TAGS.marker]: 'wallet' };
  if (owner) {
    tags[AZURE_TAGS.account] = owner.accountId;
    tags[AZURE_TAGS.vault] = owner.vaultId;
    tags[AZURE_TAGS.wallet] = owner.walletId;
    if (owner.deploymentId) tags[AZURE_TAGS.deployment] = owner.deploymentId;
  }
  return tags;
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms / x-ms-retry-after-ms of a RestError's response. */
function retryAfterMs(error: unknown): number | undefined {
  const headers = (error as { response?: { headers?: { get(name: string): string | undefined } } }).response?.headers;
  if (!headers) return undefined;
  for (const name of ['retry-after-ms', 'x-ms-retry-after-ms']) {
    const ms = Number(headers.get(name));
    if (headers.get(name) !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  }
  const after = headers.get('retry-after');
  if (after === undefined) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The service's error code and the first line of its message; never the token, which no message carries. */
function reason(error: unknown): string {
  const e = error as { code?: unknown; statusCode?: unknown; message?: string; name?: string };
  const message = (e.message ?? '').split('\n')[0]!.slice(0, 160);
  const label = typeof e.code === 'string' ? e.code : typeof e.statusCode === 'number' ? `HTTP ${e.statusCode}` : e.name && e.name !== 'Error' ? e.name : undefined;
  return label ? `${label}: ${message}` : message || 'unknown error';
}
