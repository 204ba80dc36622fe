import { randomBytes } from 'node:crypto';
// Default import: pkcs11js is CommonJS, and under Node's ESM loader a namespace import misses its constants.
import pkcs11js from 'pkcs11js';
import { DomainError, ErrorCode, invalidArgument } from '../../../src/domain/errors.js';
import { isPrivateKey } from '../../../src/domain/private-key.js';
import { addressFromPublicKey } from '../../../src/domain/address.js';
import type { CreatedKey, KeyOwner, KeyStore, RecoverableSignature, StoredKey } from '../../../src/ports/key-store.port.js';
import { completeSignature, publicKeyOf } from '../shared/secp256k1.js';

/** Configuration of the `pkcs11` key store. */
export interface Pkcs11KeyStoreConfig {
  /** `VAULT_PKCS11_MODULE`: path of the PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so */
  readonly modulePath: string;
  /** `VAULT_PKCS11_TOKEN`: label of the token holding the keys. */
  readonly tokenLabel: string;
  /** `VAULT_PKCS11_PIN`: user PIN; one login serves every session. */
  readonly pin: string;
  /** Sessions kept open for signing (default 4). */
  readonly sessions?: number;
}

/** DER of the secp256k1 OID 1.3.132.0.10, the CKA_EC_PARAMS of every key. */
const SECP256K1_PARAMS = Buffer.from('06052b8104000a', 'hex');
const LABEL_PREFIX = 'wallet-vault:';
const KEY_REF = /^[0-9a-f]{32}$/;

/**
 * CKA_LABEL of a key: `wallet-vault:<created ms>` (older releases, or no deployment given) or
 * `wallet-vault:<deployment>:<created ms>:<vault>`. A release that only knows the first form reads
 * the second as no time at all, so it never sweeps a key of this one.
 */
interface KeyLabel {
  readonly created: number;
  readonly deploymentId: string | null;
  readonly vaultId: string | null;
}

function labelOf(owner: KeyOwner | undefined, created: number): string {
  return owner?.deploymentId ? `${LABEL_PREFIX}${owner.deploymentId}:${created}:${owner.vaultId}` : `${LABEL_PREFIX}${created}`;
}

/** The parsed label, or null for an object that is not one of ours. */
function parseLabel(text: string): KeyLabel | null {
  if (!text.startsWith(LABEL_PREFIX)) return null;
  const parts = text.slice(LABEL_PREFIX.length).split(':');
  if (parts.length === 1) return { created: Number(parts[0]), deploymentId: null, vaultId: null };
  if (parts.length !== 3 || parts[0] === '') return null;
  return { created: Number(parts[1]), deploymentId: parts[0]!, vaultId: parts[2] || null };
}

const unavailable = (problem: string, cause?: unknown) =>
  new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, `key store pkcs11: ${problem}`, { cause });

/** One loaded module per process: C_Initialize may run once, and C_Finalize only after the last user. */
const modules = new Map<string, { lib: pkcs11js.PKCS11; users: number }>();

function acquireModule(path: string): pkcs11js.PKCS11 {
  let entry = modules.get(path);
  if (!entry) {
    const lib = new pkcs11js.PKCS11();
    lib.load(path);
    try {
      // Async calls (signing, key generation) run on libuv's thread pool, several at once across the
      // session pool: the module must lock for itself, or it corrupts its heap under load.
      lib.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
    } catch (error) {
      if ((error as { code?: number }).code !== pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED) throw error;
    }
    entry = { lib, users: 0 };
    modules.set(path, entry);
  }
  entry.users++;
  return entry.lib;
}

function releaseModule(path: string): void {
  const entry = modules.get(path);
  if (!entry || --entry.users > 0) return;
  modules.delete(path);
  try {
    entry.lib.C_Finalize();
  } finally {
    entry.lib.close();
  }
}

/**
 * secp256k1 keys generated on the token, private halves sensitive and never extractable. The token signs
 * the digest with CKM_ECDSA and returns raw r||s; the shared helpers make it low-s and find v against the
 * public key. Each key pair carries CKA_ID = the key reference and a label with its deployment, creation
 * time and vault, which lets the orphan sweep find its own deployment's keys that no wallet names (and
 * leave every other key on a shared token alone).
 */
export class Pkcs11KeyStore implements KeyStore {
  readonly name = 'pkcs11';
  private lib: pkcs11js.PKCS11 | undefined;
  private readonly idle: Buffer[] = [];
  private readonly waiters: ((session: Buffer) => void)[] = [];
  private readonly all: Buffer[] = [];
  private readonly publicKeys = new Map<string, Uint8Array>();

  constructor(private readonly config: Pkcs11KeyStoreConfig) {}

  /** Loads the module, finds the token, opens the sessions and logs in once. */
  async open(): Promise<void> {
    if (this.lib) return;
    let lib: pkcs11js.PKCS11;
    try {
      lib = acquireModule(this.config.modulePath);
    } catch (error) {
      throw unavailable(`cannot load module ${this.config.modulePath} (${reason(error)})`, error);
    }
    try {
      const slot = lib.C_GetSlotList(true).find((s) => lib.C_GetTokenInfo(s).label.trim() === this.config.tokenLabel);
      if (!slot) throw unavailable(`no token labelled "${this.config.tokenLabel}"`);
      for (let i = 0; i < (this.config.sessions ?? 4); i++) {
        const session = lib.C_OpenSession(slot, pkcs11js.CKF_RW_SESSION | pkcs11js.CKF_SERIAL_SESSION);
        this.all.push(session);
        this.idle.push(session);
      }
      try {
        lib.C_Login(this.all[0]!, pkcs11js.CKU_USER, this.config.pin);
      } catch (error) {
        if ((error as { code?: number }).code !== pkcs11js.CKR_USER_ALREADY_LOGGED_IN) throw error;
      }
      this.lib = lib;
    } catch (error) {
      for (const s of this.all.splice(0)) lib.C_CloseSession(s);
      this.idle.length = 0;
      releaseModule(this.config.modulePath);
      throw error instanceof DomainError ? error : unavailable(`cannot open the token (${reason(error)})`, error);
    }
  }

  async create(owner?: KeyOwner): Promise<CreatedKey> {
    const keyRef = randomBytes(16).toString('hex');
    const id = Buffer.from(keyRef, 'hex');
    const label = labelOf(owner, Date.now());
    return this.withSession(async (lib, session) => {
      const pair = await lib.C_GenerateKeyPairAsync(
        session,
        { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
        [
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_EC_PARAMS, value: SECP256K1_PARAMS },
          ...PUBLIC_KEY_USAGE,
          { type: pkcs11js.CKA_ID, value: id },
          { type: pkcs11js.CKA_LABEL, value: label },
        ],
        [
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_PRIVATE, value: true },
          ...PRIVATE_KEY_USAGE,
          { type: pkcs11js.CKA_ID, value: id },
          { type: pkcs11js.CKA_LABEL, value: label },
        ],
      );
      const publicKey = ecPoint(lib.C_GetAttributeValue(session, pair.publicKey, [{ type: pkcs11js.CKA_EC_POINT }])[0]!.value as Buffer);
      this.publicKeys.set(keyRef, publicKey);
      return { keyRef, publicKey };
    }, 'create');
  }

  /**
   * A key the operator brings, put on the token with C_CreateObject as a key pair like those `create`
   * generates (the same usages: the private key signs only, sensitive, never extractable, not copyable
   * or modifiable; the same CKA_ID and label). The token reports it CKA_LOCAL false and CKA_ALWAYS_SENSITIVE
   * / CKA_NEVER_EXTRACTABLE false: it was outside once, and says so. The value goes to the module as the
   * caller's bytes (no copy is made here); the caller zeroes them. A token that refuses to create private
   * key objects answers KEYSTORE_UNAVAILABLE naming its refusal (SoftHSM2 accepts them).
   */
  async importKey(privateKey: Uint8Array, owner?: KeyOwner): Promise<CreatedKey> {
    if (!isPrivateKey(privateKey)) throw invalidArgument('key store pkcs11: the key to import is not a secp256k1 private key');
    const publicKey = publicKeyOf(privateKey);
    const keyRef = randomBytes(16).toString('hex');
    const id = Buffer.from(keyRef, 'hex');
    const label = labelOf(owner, Date.now());
    const value = Buffer.from(privateKey.buffer, privateKey.byteOffset, privateKey.byteLength);
    return this.withSession(async (lib, session) => {
      const common = [
        { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_EC },
        { type: pkcs11js.CKA_TOKEN, value: true },
        { type: pkcs11js.CKA_EC_PARAMS, value: SECP256K1_PARAMS },
        { type: pkcs11js.CKA_ID, value: id },
        { type: pkcs11js.CKA_LABEL, value: label },
      ];
      const secret = lib.C_CreateObject(session, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
        ...common,
        { type: pkcs11js.CKA_PRIVATE, value: true },
        ...PRIVATE_KEY_USAGE,
        { type: pkcs11js.CKA_VALUE, value: value },
      ]);
      try {
        lib.C_CreateObject(session, [
          { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PUBLIC_KEY },
          ...common,
          ...PUBLIC_KEY_USAGE,
          // DER OCTET STRING of the uncompressed point, as the token reports generated keys' points.
          { type: pkcs11js.CKA_EC_POINT, value: Buffer.concat([Buffer.from([0x04, 0x41]), publicKey]) },
        ]);
      } catch (error) {
        lib.C_DestroyObject(session, secret);
        throw error;
      }
      this.publicKeys.set(keyRef, publicKey);
      return { keyRef, publicKey };
    }, 'import');
  }

  async sign(keyRef: string, digest: Uint8Array): Promise<RecoverableSignature> {
    return this.withSession(async (lib, session) => {
      const privateKey = this.find(lib, session, keyRef, pkcs11js.CKO_PRIVATE_KEY);
      if (privateKey === null) throw unavailable('no key for this wallet');
      const publicKey = this.publicKey(lib, session, keyRef);
      lib.C_SignInit(session, { mechanism: pkcs11js.CKM_ECDSA }, privateKey);
      const raw = await lib.C_SignAsync(session, Buffer.from(digest), Buffer.alloc(64));
      return completeSignature(digest, { r: raw.subarray(0, 32), s: raw.subarray(32, 64) }, publicKey);
    }, 'sign');
  }

  async destroy(keyRef: string): Promise<void> {
    this.publicKeys.delete(keyRef);
    if (!KEY_REF.test(keyRef)) return;
    await this.withSession(async (lib, session) => {
      for (const cls of [pkcs11js.CKO_PRIVATE_KEY, pkcs11js.CKO_PUBLIC_KEY]) {
        const handle = this.find(lib, session, keyRef, cls);
        if (handle !== null) lib.C_DestroyObject(session, handle);
      }
    }, 'destroy');
  }

  async ping(): Promise<void> {
    await this.open();
    await this.withSession(async (lib, session) => void lib.C_GetSessionInfo(session), 'ping');
  }

  async listKeys(query: { readonly deploymentId: string; readonly createdBefore: Date }): Promise<StoredKey[]> {
    return this.withSession(async (lib, session) => {
      const keys: StoredKey[] = [];
      for (const { keyRef, label } of this.labelledKeys(lib, session)) {
        if (label.deploymentId !== query.deploymentId || !(label.created < query.createdBefore.getTime())) continue;
        keys.push({ keyRef, address: addressOf(this.publicKey(lib, session, keyRef)), vaultId: label.vaultId });
      }
      return keys;
    }, 'list');
  }

  /** Every key of ours older than `createdBefore`, whatever deployment (or none) it carries. */
  async listKeyRefs(createdBefore: Date): Promise<string[]> {
    return this.withSession(
      async (lib, session) => this.labelledKeys(lib, session).filter((k) => k.label.created < createdBefore.getTime()).map((k) => k.keyRef),
      'list',
    );
  }

  async close(): Promise<void> {
    const lib = this.lib;
    if (!lib) return;
    this.lib = undefined;
    for (const s of this.all.splice(0)) lib.C_CloseSession(s);
    this.idle.length = 0;
    releaseModule(this.config.modulePath);
  }

  /** The private keys on the token whose label is one of ours; any other object is never touched. */
  private labelledKeys(lib: pkcs11js.PKCS11, session: Buffer): { keyRef: string; label: KeyLabel }[] {
    lib.C_FindObjectsInit(session, [{ type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY }]);
    const handles: Buffer[] = [];
    try {
      for (let batch = lib.C_FindObjects(session, 100); batch.length > 0; batch = lib.C_FindObjects(session, 100)) handles.push(...batch);
    } finally {
      lib.C_FindObjectsFinal(session);
    }
    const keys: { keyRef: string; label: KeyLabel }[] = [];
    for (const handle of handles) {
      const [label, id] = lib.C_GetAttributeValue(session, handle, [{ type: pkcs11js.CKA_LABEL }, { type: pkcs11js.CKA_ID }]);
      const parsed = parseLabel((label!.value as Buffer).toString());
      if (parsed) keys.push({ keyRef: (id!.value as Buffer).toString('hex'), label: parsed });
    }
    return keys;
  }

  private find(lib: pkcs11js.PKCS11, session: Buffer, keyRef: string, cls: number): Buffer | null {
    if (!KEY_REF.test(keyRef)) return null;
    lib.C_FindObjectsInit(session, [
      { type: pkcs11js.CKA_CLASS, value: cls },
      { type: pkcs11js.CKA_ID, value: Buffer.from(keyRef, 'hex') },
    ]);
    try {
      return lib.C_FindObjects(session);
    } finally {
      lib.C_FindObjectsFinal(session);
    }
  }

  private publicKey(lib: pkcs11js.PKCS11, session: Buffer, keyRef: string): Uint8Array {
    let key = this.publicKeys.get(keyRef);
    if (!key) {
      const handle = this.find(lib, session, keyRef, pkcs11js.CKO_PUBLIC_KEY);
      if (handle === null) throw unavailable('no public key for this wallet');
      key = ecPoint(lib.C_GetAttributeValue(session, handle, [{ type: pkcs11js.CKA_EC_POINT }])[0]!.value as Buffer);
      this.publicKeys.set(keyRef, key);
    }
    return key;
  }

  /** Runs `work` on a pooled session; a session does one operation at a time, as PKCS#11 requires. */
  private async withSession<T>(work: (lib: pkcs11js.PKCS11, session: Buffer) => Promise<T>, operation: string): Promise<T> {
    await this.open();
    const lib = this.lib!;
    const session = this.idle.pop() ?? (await new Promise<Buffer>((resolve) => this.waiters.push(resolve)));
    try {
      return await work(lib, session);
    } catch (error) {
      throw error instanceof DomainError ? error : unavailable(`${operation} failed (${reason(error)})`, error);
    } finally {
      const next = this.waiters.shift();
      if (next) next(session);
      else this.idle.push(session);
    }
  }
}

/**
 * Every usage of a wallet key set explicitly, not left to the token's defaults (which differ between
 * tokens and may allow derive or decrypt): the private key signs and does nothing else, cannot be
 * read, exported, copied or changed later (CKA_MODIFIABLE false, so not even the PIN holder can turn
 * CKA_DERIVE or CKA_EXTRACTABLE on); the public key only verifies. CKA_DESTROYABLE stays true: the
 * purge destroys keys. Checked by reading the attributes back from SoftHSM2
 * (test/contract/pkcs11.key-store.test.ts).
 */
const PRIVATE_KEY_USAGE: readonly pkcs11js.Template[number][] = [
  { type: pkcs11js.CKA_SIGN, value: true },
  { type: pkcs11js.CKA_SIGN_RECOVER, value: false },
  { type: pkcs11js.CKA_DECRYPT, value: false },
  { type: pkcs11js.CKA_UNWRAP, value: false },
  { type: pkcs11js.CKA_DERIVE, value: false },
  { type: pkcs11js.CKA_SENSITIVE, value: true },
  { type: pkcs11js.CKA_EXTRACTABLE, value: false },
  { type: pkcs11js.CKA_COPYABLE, value: false },
  { type: pkcs11js.CKA_MODIFIABLE, value: false },
];
const PUBLIC_KEY_USAGE: readonly pkcs11js.Template[number][] = [
  { type: pkcs11js.CKA_VERIFY, value: true },
  { type: pkcs11js.CKA_VERIFY_RECOVER, value: false },
  { type: pkcs11js.CKA_ENCRYPT, value: false },
  { type: pkcs11js.CKA_WRAP, value: false },
  { type: pkcs11js.CKA_DERIVE, value: false },
  { type: pkcs11js.CKA_MODIFIABLE, value: false },
];

/** CKA_EC_POINT is the uncompressed point wrapped in a DER OCTET STRING (04 41 04 ...). */
function ecPoint(value: Buffer): Uint8Array {
  const point = value.length === 67 && value[0] === 0x04 && value[1] === 0x41 ? value.subarray(2) : value;
  if (point.length !== 65 || point[0] !== 0x04) throw unavailable('token returned an unexpected EC point');
  return new Uint8Array(point);
}

const addressOf = (publicKey: Uint8Array) => addressFromPublicKey(publicKey).toLowerCase();

function reason(error: unknown): string {
  const e = error as { message?: string };
  return (e.message ?? String(error)).split('\n')[0]!.slice(0, 160);
}
