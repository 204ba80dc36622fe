import {
  CreateKeyCommand,
  DisableKeyCommand,
  GetParametersForImportCommand,
  GetPublicKeyCommand,
  ImportKeyMaterialCommand,
  KMSClient,
  ListKeysCommand,
  ScheduleKeyDeletionCommand,
  SignCommand,
} from '@aws-sdk/client-kms';
import { constants, createPublicKey, publicEncrypt } from 'node:crypto';
import { DomainError, ErrorCode, invalidArgument } from '../../../src/domain/errors.js';
import { isPrivateKey } from '../../../src/domain/private-key.js';
import type { CreatedKey, KeyOwner, KeyStore, RecoverableSignature } from '../../../src/ports/key-store.port.js';
import { completeSignature, parseDerSignature, parseSpkiPublicKey, publicKeyOf } from '../shared/secp256k1.js';

/** Configuration of the `aws-kms` key store. Credentials and region come from the SDK's default chain unless given. */
export interface AwsKmsKeyStoreConfig {
  /** A client the application already has; the other settings are then ignored. */
  readonly client?: KMSClient;
  readonly region?: string;
  /** `VAULT_KMS_ENDPOINT`: a KMS-compatible endpoint (LocalStack, a VPC endpoint, a test server). */
  readonly endpoint?: string;
  readonly credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Per-request timeout (default 5 s). */
  readonly requestTimeoutMs?: number;
  /** SDK attempts including retries (default 3). */
  readonly maxAttempts?: number;
  /**
   * Told each time the SDK retries a request of a client this store made (not of one handed in): why
   * the attempt before failed, the service's quota (`throttled`: HTTP 429, ThrottlingException) or a
   * brief failure (`unavailable`: 5xx, a timeout, a reset connection). `serve` counts it in
   * wallet_vault_keystore_retries_total.
   */
  readonly onRetry?: (reason: 'throttled' | 'unavailable') => void;
}

/**
 * PKCS#8 PrivateKeyInfo of a secp256k1 key up to the key's 32 bytes (RFC 5208 around RFC 5915's
 * ECPrivateKey, curve in the AlgorithmIdentifier): the form KMS takes ECC key material in.
 */
const PKCS8_SECP256K1_PREFIX = Buffer.from('303e020100301006072a8648ce3d020106052b8104000a042730250201010420', 'hex');

/** The shortest window KMS allows between scheduling and deleting a key. */
export const KMS_MIN_PENDING_DAYS = 7;
const PUBLIC_KEY_CACHE = 10_000;

const unavailable = (problem: string, cause?: unknown) =>
  new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, `key store aws-kms: ${problem}`, { cause });

/** Error names that mean the key is already gone or going: destroy() treats them as done. */
const ALREADY_GONE = new Set(['NotFoundException', 'KMSInvalidStateException']);

/**
 * Keys of spec ECC_SECG_P256K1 that never leave KMS. KMS signs the digest (MessageType DIGEST) and
 * returns a DER signature with any s, so the shared helpers normalise it to low-s and find v against the
 * key's public key, which is cached because every sign needs it.
 */
export class AwsKmsKeyStore implements KeyStore {
  readonly name = 'aws-kms';
  private readonly client: KMSClient;
  /** A client the application handed in is the application's to destroy, not this store's. */
  private readonly ownsClient: boolean;
  private readonly publicKeys = new Map<string, Uint8Array>();

  constructor(config: AwsKmsKeyStoreConfig) {
    // A client the application configured itself is used as is (its region, credentials and timeouts).
    this.ownsClient = config.client === undefined;
    this.client = config.client ?? new KMSClient({
      region: config.region,
      endpoint: config.endpoint,
      credentials: config.credentials,
      maxAttempts: config.maxAttempts ?? 3,
      // Without throwOnRequestTimeout the SDK only logs a warning when requestTimeout passes and keeps
      // waiting: a KMS endpoint that accepts and never answers would hang the request for good.
      requestHandler: {
        requestTimeout: config.requestTimeoutMs ?? 5000,
        connectionTimeout: config.requestTimeoutMs ?? 5000,
        throwOnRequestTimeout: true,
      },
    });
    if (config.client === undefined && config.onRetry) countRetries(this.client, config.onRetry);
  }

  async create(owner?: KeyOwner): Promise<CreatedKey> {
    const created = await this.call('CreateKey', () =>
      this.client.send(
        new CreateKeyCommand({
          KeySpec: 'ECC_SECG_P256K1',
          KeyUsage: 'SIGN_VERIFY',
          Description: owner ? `wallet-vault key of wallet ${owner.walletId} in vault ${owner.vaultId}` : 'wallet-vault wallet key',
          Tags: kmsTags(owner),
        }),
      ),
    );
    const keyRef = created.KeyMetadata?.KeyId;
    if (!keyRef) throw unavailable('CreateKey returned no key id');
    try {
      return { keyRef, publicKey: await this.publicKey(keyRef) };
    } catch (error) {
      // A key no wallet will ever name: schedule it away before reporting the failure.
      await this.destroy(keyRef).catch(() => undefined);
      throw error;
    }
  }

  /**
   * KMS's own import of key material (BYOK), which it allows for ECC_SECG_P256K1 signing keys: a key
   * created with Origin EXTERNAL (no material), GetParametersForImport (an RSA-2048 wrapping key and an
   * import token, RSAES_OAEP_SHA_256), the key as PKCS#8 DER encrypted under it, ImportKeyMaterial
   * (KEY_MATERIAL_DOES_NOT_EXPIRE). The key then signs inside KMS as a created one does; its public key
   * is read back and must be the key's. The PKCS#8 buffer made here is zeroed once encrypted; the caller
   * zeroes `privateKey`. A failure after CreateKey schedules the key's deletion, as `create` does.
   */
  async importKey(privateKey: Uint8Array, owner?: KeyOwner): Promise<CreatedKey> {
    if (!isPrivateKey(privateKey)) throw invalidArgument('key store aws-kms: the key to import is not a secp256k1 private key');
    const expected = Buffer.from(publicKeyOf(privateKey));
    const created = await this.call('CreateKey', () =>
      this.client.send(
        new CreateKeyCommand({
          KeySpec: 'ECC_SECG_P256K1',
          KeyUsage: 'SIGN_VERIFY',
          Origin: 'EXTERNAL',
          Description: owner ? `wallet-vault imported key of wallet ${owner.walletId} in vault ${owner.vaultId}` : 'wallet-vault imported wallet key',
          Tags: kmsTags(owner),
        }),
      ),
    );
    const keyRef = created.KeyMetadata?.KeyId;
    if (!keyRef) throw unavailable('CreateKey returned no key id');
    try {
      const params = await this.call('GetParametersForImport', () =>
        this.client.send(new GetParametersForImportCommand({ KeyId: keyRef, WrappingAlgorithm: 'RSAES_OAEP_SHA_256', WrappingKeySpec: 'RSA_2048' })),
      );
      if (!params.PublicKey || !params.ImportToken) throw unavailable('GetParametersForImport returned no wrapping key or import token');
      const wrappingKey = createPublicKey({ key: Buffer.from(params.PublicKey), format: 'der', type: 'spki' });
      const material = Buffer.concat([PKCS8_SECP256K1_PREFIX, privateKey]);
      let encrypted: Buffer;
      try {
        encrypted = publicEncrypt({ key: wrappingKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, material);
      } finally {
        material.fill(0);
      }
      await this.call('ImportKeyMaterial', () =>
        this.client.send(
          new ImportKeyMaterialCommand({ KeyId: keyRef, ImportToken: params.ImportToken, EncryptedKeyMaterial: encrypted, ExpirationModel: 'KEY_MATERIAL_DOES_NOT_EXPIRE' }),
        ),
      );
      const publicKey = await this.publicKey(keyRef);
      if (!expected.equals(Buffer.from(publicKey))) throw unavailable('the imported key answers with another public key');
      return { keyRef, publicKey };
    } catch (error) {
      await this.destroy(keyRef).catch(() => undefined);
      throw error;
    }
  }

  async sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    const publicKey = await this.publicKey(keyRef);
    const signed = await this.call('Sign', () =>
      this.client.send(new SignCommand({ KeyId: keyRef, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' })),
    );
    if (!signed.Signature) throw unavailable('Sign returned no signature');
    try {
      return completeSignature(digest, parseDerSignature(signed.Signature), publicKey);
    } catch (error) {
      throw unavailable('Sign returned a signature that does not verify against the key', error);
    }
  }

  /** Disable, then schedule deletion with the shortest window: a disabled key signs nothing from now on. */
  async destroy(keyRef: string): Promise<void> {
    this.publicKeys.delete(keyRef);
    for (const step of [
      () => this.client.send(new DisableKeyCommand({ KeyId: keyRef })),
      () => this.client.send(new ScheduleKeyDeletionCommand({ KeyId: keyRef, PendingWindowInDays: KMS_MIN_PENDING_DAYS })),
    ]) {
      try {
        await step();
      } catch (error) {
        if (!ALREADY_GONE.has((error as { name?: string }).name ?? '')) throw unavailable(`could not delete a key (${reason(error)})`, error);
      }
    }
  }

  async ping(): Promise<void> {
    await this.call('ListKeys', () => this.client.send(new ListKeysCommand({ Limit: 1 })));
  }

  /** KMS keys are found by tag only at great cost, so the orphan sweep does not apply to this store (no listKeys). */
  async listKeyRefs(): Promise<string[]> {
    return [];
  }

  async close(): Promise<void> {
    if (this.ownsClient) this.client.destroy();
  }

  private async publicKey(keyRef: string): Promise<Uint8Array> {
    const cached = this.publicKeys.get(keyRef);
    if (cached) return cached;
    const answer = await this.call('GetPublicKey', () => this.client.send(new GetPublicKeyCommand({ KeyId: keyRef })));
    if (answer.KeySpec !== 'ECC_SECG_P256K1' || !answer.PublicKey) throw unavailable(`key ${keyRef} is not an ECC_SECG_P256K1 key`);
    const key = parseSpkiPublicKey(answer.PublicKey);
    if (this.publicKeys.size >= PUBLIC_KEY_CACHE) this.publicKeys.delete(this.publicKeys.keys().next().value as string);
    this.publicKeys.set(keyRef, key);
    return key;
  }

  private async call<T>(operation: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw unavailable(`${operation} failed (${reason(error)})`, error);
    }
  }
}

/**
 * `wallet-vault=wallet` on every key (the IAM policy in docs/keystores.md conditions on it), and the
 * account, vault and wallet the key belongs to, so a key in the KMS console names its wallet, and the
 * deployment that created it, so keys of deployments sharing an account can be told apart.
 */
export function kmsTags(owner: KeyOwner | undefined): { TagKey: string; TagValue: string }[] {
  const tags = [{ TagKey: 'wallet-vault', TagValue: 'wallet' }];
  if (owner) {
    tags.push(
      { TagKey: 'wallet-vault:account', TagValue: owner.accountId },
      { TagKey: 'wallet-vault:vault', TagValue: owner.vaultId },
      { TagKey: 'wallet-vault:wallet', TagValue: owner.walletId },
    );
    if (owner.deploymentId) tags.push({ TagKey: 'wallet-vault:deployment', TagValue: owner.deploymentId });
  }
  return tags;
}

/** The SDK error's name and a short message; never credentials, which the SDK does not put in messages. */
function reason(error: unknown): string {
  const e = error as { name?: string; message?: string };
  const message = (e.message ?? '').split('\n')[0]!.slice(0, 160);
  return e.name && e.name !== 'Error' ? `${e.name}: ${message}` : message || 'unknown error';
}

/**
 * Adds a step inside the SDK's retry loop (after its retryMiddleware), which runs once per attempt of a
 * request: an attempt after a failed one is a retry, and the failure says why. Built once per request,
 * so `failed` is that request's own.
 */
function countRetries(client: KMSClient, onRetry: (reason: 'throttled' | 'unavailable') => void): void {
  type Middleware = Parameters<KMSClient['middlewareStack']['addRelativeTo']>[0];
  const perAttempt = (next: (args: unknown) => Promise<unknown>) => {
    let failed: unknown;
    return async (args: unknown) => {
      if (failed !== undefined) onRetry(isThrottling(failed) ? 'throttled' : 'unavailable');
      try {
        return await next(args);
      } catch (error) {
        failed = error ?? new Error('attempt failed');
        throw error;
      }
    };
  };
  client.middlewareStack.addRelativeTo(perAttempt as unknown as Middleware, {
    relation: 'after',
    toMiddleware: 'retryMiddleware',
    name: 'walletVaultRetryCount',
    override: true,
  });
}

/** The SDK's own test of a throttling error (isThrottlingError of @smithy/core's retry): HTTP 429, a throttling error name, or the throttling trait. */
function isThrottling(error: unknown): boolean {
  const e = error as { name?: unknown; $metadata?: { httpStatusCode?: unknown }; $retryable?: { throttling?: unknown } };
  return (
    e.$metadata?.httpStatusCode === 429 ||
    e.$retryable?.throttling === true ||
    (typeof e.name === 'string' && /^(Throttling(Exception)?|ThrottledException|TooManyRequestsException|RequestLimitExceeded|LimitExceededException|SlowDown)$/.test(e.name))
  );
}
