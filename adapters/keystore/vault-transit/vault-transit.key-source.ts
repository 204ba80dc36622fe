import vault from 'node-vault';
import { addressFromPublicKey } from '../../../src/domain/address.js';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import type { CreatedKey } from '../../../src/ports/key-store.port.js';
import type { KeySource } from '../shared/local-signing.key-store.js';
import { generatePrivateKey, publicKeyOf } from '../shared/secp256k1.js';

/** The Vault and the Transit key that wrap the keys of the `vault-transit` key store. */
export interface VaultTransitKeySourceConfig {
  /** A node-vault client the application already has; `address`, `token` and the timeout are then unused. */
  readonly client?: vault.client;
  /** `VAULT_ADDR`, e.g. https://vault.internal:8200 */
  readonly address?: string;
  /** `VAULT_TOKEN`: needs update on the encrypt, decrypt and rewrap paths and read on the key. */
  readonly token?: string;
  /** `VAULT_TRANSIT_MOUNT` (default `transit`). */
  readonly mount?: string;
  /** `VAULT_TRANSIT_KEY`: the Transit key that wraps every wallet key. */
  readonly keyName: string;
  /** Timeout of one Vault call (default 5 s). */
  readonly requestTimeoutMs?: number;
}

const KEY_REF = /^(0x[0-9a-f]{40}):(vault:v\d+:[A-Za-z0-9+/=]+)$/;

const unavailable = (problem: string, cause?: unknown) =>
  new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, `key store vault-transit: ${problem}`, { cause });

/**
 * The custody half of the `vault-transit` key store. Transit has no secp256k1 key type, so the key is
 * generated here, wrapped by a Transit key and kept only as that ciphertext; Transit's decrypt unwraps it
 * for LocalSigningKeyStore. The key reference is `<address>:<ciphertext>`: it is stored with the wallet, so
 * there is nothing to destroy in Vault, and after decryption the key must derive that address, so a
 * ciphertext moved to another wallet's record is refused instead of signing for the wrong wallet.
 */
export class VaultTransitKeySource implements KeySource {
  private readonly client: vault.client;
  private readonly base: string;

  constructor(private readonly config: VaultTransitKeySourceConfig) {
    // A client the application configured itself is used as is (its address, token and timeouts).
    this.client = config.client ?? vault({
      apiVersion: 'v1',
      endpoint: config.address,
      token: config.token,
      requestOptions: { timeout: config.requestTimeoutMs ?? 5000 },
    });
    this.base = `${config.mount ?? 'transit'}`;
  }

  async create(): Promise<CreatedKey> {
    const privateKey = generatePrivateKey();
    try {
      return await this.import(privateKey);
    } finally {
      privateKey.fill(0);
    }
  }

  /**
   * Wraps the key with Transit's encrypt, as `create` wraps the key it generates: Transit keeps nothing
   * per key (the ciphertext is the key reference, stored with the wallet), so an import is that same
   * call. As for a created key, the request body carries the key base64-encoded (a JavaScript string,
   * which cannot be zeroed, until it is collected). The caller zeroes `privateKey`.
   */
  async import(privateKey: Uint8Array): Promise<CreatedKey> {
    const publicKey = publicKeyOf(privateKey);
    const address = addressFromPublicKey(publicKey).toLowerCase();
    const answer = await this.call('encrypt', { plaintext: Buffer.from(privateKey.buffer, privateKey.byteOffset, privateKey.byteLength).toString('base64') });
    const ciphertext = (answer as { data?: { ciphertext?: string } }).data?.ciphertext;
    if (!ciphertext) throw unavailable('encrypt returned no ciphertext');
    return { keyRef: `${address}:${ciphertext}`, publicKey };
  }

  /** The ciphertext lives in the wallet's key reference, so removing the wallet record removes it: nothing in Vault to destroy. */
  async destroy(): Promise<void> {}

  async ping(): Promise<void> {
    try {
      await this.client.read(`${this.base}/keys/${this.config.keyName}`);
    } catch (error) {
      throw unavailable(`transit key "${this.config.keyName}" at mount "${this.base}" is not readable (${reason(error)})`, error);
    }
  }

  /** The same key wrapped by the latest Transit key version. */
  async rewrap(keyRef: string): Promise<string> {
    const { address, ciphertext } = parseKeyRef(keyRef);
    const answer = await this.call('rewrap', { ciphertext });
    const rewrapped = (answer as { data?: { ciphertext?: string } }).data?.ciphertext;
    if (!rewrapped) throw unavailable('rewrap returned no ciphertext');
    return `${address}:${rewrapped}`;
  }

  /** Transit's decrypt of the ciphertext in `keyRef`, checked against the address beside it (KeySource). */
  async load(keyRef: string): Promise<Buffer> {
    const { address, ciphertext } = parseKeyRef(keyRef);
    const answer = await this.call('decrypt', { ciphertext });
    const plaintext = (answer as { data?: { plaintext?: string } }).data?.plaintext;
    if (!plaintext) throw unavailable('decrypt returned no plaintext');
    const key = Buffer.from(plaintext, 'base64');
    if (key.length !== 32 || addressFromPublicKey(publicKeyOf(key)).toLowerCase() !== address) {
      key.fill(0);
      throw unavailable('wrapped key does not belong to this wallet');
    }
    return key;
  }

  private async call(operation: 'encrypt' | 'decrypt' | 'rewrap', body: object): Promise<unknown> {
    try {
      return await this.client.write(`${this.base}/${operation}/${this.config.keyName}`, body);
    } catch (error) {
      throw unavailable(`${operation} failed (${reason(error)})`, error);
    }
  }
}

function parseKeyRef(keyRef: string): { address: string; ciphertext: string } {
  const m = KEY_REF.exec(keyRef);
  if (!m) throw unavailable('no key for this wallet');
  return { address: m[1]!, ciphertext: m[2]! };
}

/** Vault's own error text or the network error code; the token never appears in either. */
function reason(error: unknown): string {
  const e = error as { message?: string; code?: string; response?: { statusCode?: number } };
  const status = e.response?.statusCode;
  return [status ? `HTTP ${status}` : e.code, e.message?.split('\n')[0]?.slice(0, 160)].filter(Boolean).join(': ') || 'unknown error';
}
