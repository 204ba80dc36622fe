import { access, mkdir, open, readdir, readFile, stat, unlink, constants } from 'node:fs/promises';
import path from 'node:path';
import { addressFromPublicKey } from '../../../src/domain/address.js';
import { DomainError, ErrorCode } from '../../../src/domain/errors.js';
import type { CreatedKey, DerivedKey, KeyOwner, StoredKey } from '../../../src/ports/key-store.port.js';
import type { KeySource } from '../shared/local-signing.key-store.js';
import { deriveHdKey, hdPath, newHdSeed } from '../shared/hd-seed.js';
import { generatePrivateKey, publicKeyOf } from '../shared/secp256k1.js';
import { fsyncDir, publishFileOnce, writeFileDurably } from './durable-file.js';
import { KEY_FILE_HEADER_MAX, KEY_FILE_SUFFIX as SUFFIX, KEY_REF, keyLabelOf, keyRefOfFileName, sealKey, seedRefOf, unsealKey } from './key-file.js';
import { verifyMasterKey, type MasterKeySource } from './master-key-check.js';
import type { HeldMasterKey } from '../key-store-module.js';
import { MasterKeyHolder } from './master-key-holder.js';

/** Where the `local` key store keeps its key files, and the key that wraps them. */
export interface LocalFileKeySourceConfig {
  /** Directory of the key files (created 0700). */
  readonly keysDir: string;
  /**
   * 32-byte AES-256-GCM key that wraps every key file, or the holder it is asked of at each use
   * (VAULT_SEAL=shamir: empty until the unseal, and every use is VAULT_SEALED meanwhile).
   */
  readonly masterKey: Buffer | HeldMasterKey;
  /**
   * Where the master key came from (default VAULT_MASTER_KEY): a mismatch with the key directory's
   * check value names it.
   */
  readonly masterKeySource?: MasterKeySource;
}

const unavailable = (message: string, cause?: unknown) =>
  new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, `key store local: ${message}`, { cause });

/**
 * The custody half of the `local` key store: private keys as AES-256-GCM files under a master key,
 * created, unwrapped (for LocalSigningKeyStore), listed and deleted here. The key reference is the wallet's
 * lower-case address, which is also the file name and the GCM associated data: a key file moved to
 * another wallet's name fails authentication instead of signing for the wrong wallet. A key created for
 * an owner with a deployment id carries it (and the vault) in its header, also authenticated, so the
 * orphan sweep of one deployment never takes another's key in a shared directory for its own.
 */
export class LocalFileKeySource implements KeySource {
  private dirReady: Promise<void> | undefined;
  readonly holder: HeldMasterKey;

  constructor(private readonly config: LocalFileKeySourceConfig) {
    this.holder = Buffer.isBuffer(config.masterKey) ? new MasterKeyHolder(config.masterKey) : config.masterKey;
  }

  async create(owner?: KeyOwner): Promise<CreatedKey> {
    const privateKey = generatePrivateKey();
    try {
      return await this.keep(privateKey, owner, 'create');
    } finally {
      privateKey.fill(0);
    }
  }

  /**
   * A key the operator brings, kept as `create` keeps one (the same sealed file, durable before this
   * resolves). The file is published only where none is: a key file of this address already there (a
   * quarantined key, or another deployment's in a shared directory) is refused, never replaced.
   */
  async import(privateKey: Uint8Array, owner?: KeyOwner): Promise<CreatedKey> {
    const copy = Buffer.from(privateKey);
    try {
      return await this.keep(copy, owner, 'import');
    } finally {
      copy.fill(0);
    }
  }

  /**
   * The key at `index` of the vault's HD seed, kept as a created key is (its own key file, so it signs as
   * any other), durable before this resolves. The seed is generated at the vault's first derived wallet
   * and published once (two instances racing on a shared directory agree on the first), wrapped under the
   * master key in `hd-seed-<vault>.key`; it is read for each derivation and zeroed, never cached.
   */
  async derive(index: number, owner: KeyOwner): Promise<DerivedKey> {
    const derivationPath = hdPath(index);
    const seed = await this.seedOf(owner);
    try {
      const privateKey = deriveHdKey(seed, derivationPath);
      try {
        return { ...(await this.keep(privateKey, owner, 'create')), derivationPath };
      } finally {
        privateKey.fill(0);
      }
    } finally {
      seed.fill(0);
    }
  }

  /** The vault's seed as derive reads it, never generated here: null when the vault has none yet. */
  async seed(vaultId: string): Promise<Buffer | null> {
    const masterKey = this.holder.key();
    const ref = seedRefOf(vaultId);
    let sealed: Buffer;
    try {
      sealed = await readFile(this.fileOf(ref));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw unavailable(`could not read the vault's HD seed (${errorCode(error)})`, error);
    }
    const seed = unsealKey(masterKey, ref, sealed);
    if (!seed) throw unavailable((await this.checkMasterKey().catch(() => null)) ?? "the vault's HD seed file failed authentication");
    return seed;
  }

  private async seedOf(owner: KeyOwner): Promise<Buffer> {
    // Asked first: a sealed store refuses (VAULT_SEALED) before it reads or writes anything.
    const masterKey = this.holder.key();
    const ref = seedRefOf(owner.vaultId);
    const file = this.fileOf(ref);
    const label = owner.deploymentId ? { deploymentId: owner.deploymentId, vaultId: owner.vaultId } : null;
    let sealed: Buffer;
    try {
      await this.ensureDir();
      sealed = await readFile(file).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
        const fresh = newHdSeed();
        try {
          await publishFileOnce(file, sealKey(masterKey, ref, fresh, label));
        } finally {
          fresh.fill(0);
        }
        return readFile(file);
      });
    } catch (error) {
      throw unavailable(`could not keep the vault's HD seed (${errorCode(error)})`, error);
    }
    const seed = unsealKey(masterKey, ref, sealed);
    if (!seed) throw unavailable((await this.checkMasterKey().catch(() => null)) ?? "the vault's HD seed file failed authentication");
    return seed;
  }

  private async keep(privateKey: Buffer, owner: KeyOwner | undefined, how: 'create' | 'import'): Promise<CreatedKey> {
    const label = owner?.deploymentId ? { deploymentId: owner.deploymentId, vaultId: owner.vaultId } : null;
    const publicKey = publicKeyOf(privateKey);
    const keyRef = addressFromPublicKey(publicKey).toLowerCase();
    const file = this.fileOf(keyRef);
    // Asked first: a sealed store refuses (VAULT_SEALED) before it writes anything.
    const masterKey = this.holder.key();
    let published = true;
    try {
      await this.ensureDir();
      const sealed = sealKey(masterKey, keyRef, privateKey, label);
      if (how === 'create') await writeFileDurably(file, sealed);
      else published = await publishFileOnce(file, sealed);
    } catch (error) {
      // A full or read-only disk, a missing directory: the store is failing (503), not the service (500).
      throw unavailable(`could not write a key file (${errorCode(error)})`, error);
    }
    if (!published) {
      throw new DomainError(
        ErrorCode.CONFLICT,
        `key store local already holds a key file for ${addressFromPublicKey(publicKey)} (a quarantined key: wallet-vault keys quarantine list; or another deployment's sharing the directory); nothing was imported`,
      );
    }
    // Checked after the write: a master key rotation that begins later lists this file, and one that
    // began (or finished) since this store opened would miss it, so the wallet is refused instead.
    const problem = await this.checkMasterKey().catch((error: unknown) => error as Error);
    if (problem !== null) {
      await unlink(file).catch(() => undefined);
      throw problem instanceof Error ? problem : unavailable(problem);
    }
    return { keyRef, publicKey };
  }

  /** Deletes the key file (durably); one already gone is not an error. */
  async destroy(keyRef: string): Promise<void> {
    if (!KEY_REF.test(keyRef)) return;
    try {
      await unlink(this.fileOf(keyRef));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unavailable('could not delete a key file', error);
      return;
    }
    await fsyncDir(this.config.keysDir);
  }

  /**
   * Also checks the master key against the key directory's check value, so a store with the wrong key
   * (or one whose files a rotation is re-wrapping) is not ready rather than failing every sign.
   */
  async ping(): Promise<void> {
    const problem = await this.checkMasterKey();
    if (problem) throw unavailable(problem);
  }

  /**
   * Null when the directory is usable with this master key, else what is wrong (the start stops with it).
   * Sealed, only the directory is checked: there is no key to check yet (the unseal checks the one it
   * reconstructs), and readiness says sealed on its own.
   */
  async checkMasterKey(): Promise<string | null> {
    try {
      await this.ensureDir();
      await access(this.config.keysDir, constants.R_OK | constants.W_OK);
    } catch (error) {
      throw unavailable('key directory is not accessible', error);
    }
    if (this.holder.sealed) return null;
    try {
      return await verifyMasterKey(this.config.keysDir, this.holder.key(), this.config.masterKeySource ?? { kind: 'env' });
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
      throw unavailable(`could not check the master key (${reason})`, error);
    }
  }

  /** Reads only each file's header: the deployment and vault it carries are in clear there. */
  async listKeys(query: { readonly deploymentId: string; readonly createdBefore: Date }): Promise<StoredKey[]> {
    const keys: StoredKey[] = [];
    for (const { ref, file } of await this.keyFilesBefore(query.createdBefore)) {
      const label = keyLabelOf(await readHeader(file));
      if (label?.deploymentId === query.deploymentId) keys.push({ keyRef: ref, address: ref, vaultId: label.vaultId });
    }
    return keys;
  }

  /** Every key file older than `createdBefore`, whatever deployment (or none) it carries. */
  async listKeyRefs(createdBefore: Date): Promise<string[]> {
    return (await this.keyFilesBefore(createdBefore)).map((f) => f.ref);
  }

  private async keyFilesBefore(createdBefore: Date): Promise<{ ref: string; file: string }[]> {
    await this.ensureDir();
    const found: { ref: string; file: string }[] = [];
    for (const name of await readdir(this.config.keysDir)) {
      const file = path.join(this.config.keysDir, name);
      const info = await stat(file).catch(() => undefined);
      if (!info || info.mtimeMs >= createdBefore.getTime()) continue;
      if (name.endsWith('.tmp')) {
        // A temp file left by a crash mid-write: never named by any record, and never a key yet.
        await unlink(file).catch(() => undefined);
        continue;
      }
      const ref = keyRefOfFileName(name);
      if (ref) found.push({ ref, file });
    }
    return found;
  }

  private ensureDir(): Promise<void> {
    this.dirReady ??= mkdir(this.config.keysDir, { recursive: true, mode: 0o700 }).then(
      () => undefined,
      (error: unknown) => {
        // Not remembered: once the directory can be created, the next call succeeds without a restart.
        this.dirReady = undefined;
        throw error;
      },
    );
    return this.dirReady;
  }

  private fileOf(keyRef: string): string {
    return path.join(this.config.keysDir, `${keyRef}${SUFFIX}`);
  }

  /** The key of `keyRef` from its file, checked against the address that names the file (KeySource). */
  async load(keyRef: string): Promise<Buffer> {
    if (!KEY_REF.test(keyRef)) throw unavailable('no key for this wallet');
    const masterKey = this.holder.key();
    let sealed: Buffer;
    try {
      sealed = await readFile(this.fileOf(keyRef));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw unavailable('no key for this wallet');
      throw unavailable('could not read a key file', error);
    }
    const key = unsealKey(masterKey, keyRef, sealed);
    // A master key changed under a running server says so, rather than only that a file failed.
    if (!key) throw unavailable((await this.checkMasterKey().catch(() => null)) ?? 'key file failed authentication');
    // Belt and braces: the key must be the one whose address names the file.
    if (addressFromPublicKey(publicKeyOf(key)).toLowerCase() !== keyRef) {
      key.fill(0);
      throw unavailable('key file failed authentication');
    }
    return key;
  }
}

/** The first bytes of a file, enough for any key file header (empty when it cannot be read). */
async function readHeader(file: string): Promise<Buffer> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return Buffer.alloc(0);
  try {
    const buffer = Buffer.alloc(KEY_FILE_HEADER_MAX);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : 'unknown error';
}
