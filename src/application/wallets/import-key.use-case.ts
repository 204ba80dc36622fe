import { addressFromPublicKey } from '../../domain/address.js';
import { DomainError, ErrorCode, invalidArgument } from '../../domain/errors.js';
import { addressOfPrivateKey } from '../../domain/private-key.js';
import { normalizeWalletName, type Wallet } from '../../domain/wallet.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { KeyStoreRegistry } from '../../ports/key-store.port.js';
import type { KeystoreDecryptor } from '../../ports/keystore-decryptor.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { audit, OPERATOR } from '../audit/audit-actor.js';
import type { WalletBindings } from './wallet-binding.js';
import { requireVault } from './wallet-lookup.js';

/**
 * A key the operator brings, to become a wallet of `vaultId` named `name`: either the raw private key or a
 * V3 keystore and its password, never both. The import owns the buffers it is given: `privateKey` and
 * `keystore.password` are zeroed before it resolves or rejects, whatever the outcome.
 */
export interface ImportKeyCommand {
  readonly vaultId: string;
  readonly name: string;
  /** The 32-byte secp256k1 private key. */
  readonly privateKey?: Uint8Array;
  /** A V3 keystore (Web3 Secret Storage JSON text) and the bytes of its password. */
  readonly keystore?: { readonly json: string; readonly password: Uint8Array };
}

/**
 * `wallet-vault keys import` and `vault.keys.import(...)`: makes a wallet of an existing key, in the
 * default key store (the one new wallets go to), with the key's own address.
 *
 * - One key is one wallet: an address any wallet record of this database has (in this vault or another,
 *   live or expired and not yet purged) is refused, CONFLICT, before anything is stored.
 * - A store without `importKey` refuses, KEYSTORE_IMPORT_UNSUPPORTED naming it, before the key is read.
 * - As createWallet: the key is durable in its store before the wallet record naming it is committed, and
 *   the record before the import resolves; a record that cannot be written destroys the key just stored.
 * - Audited as `key.imported` (the wallet's creation record for an imported key), by `operator`.
 * - The key never appears in an error, the audit record or the answer; every buffer holding it is zeroed.
 */
export interface ImportKeyDeps {
  readonly repository: VaultStore & WalletStore;
  readonly keyStores: KeyStoreRegistry;
  /** The imported key signs the wallet's binding to its vault (WalletBindings.bind), written with the record. */
  readonly bindings: WalletBindings;
  readonly decryptor: KeystoreDecryptor;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly auditLog: AuditLog;
  /** Recorded on the key, as createWallet does, so the orphan sweep knows it as this deployment's (null: none). */
  readonly deploymentId: string | null;
}

export class ImportKey {
  private readonly repository: VaultStore & WalletStore;
  private readonly clock: Clock;

  constructor(private readonly deps: ImportKeyDeps) {
    this.repository = deps.repository;
    this.clock = deps.clock;
  }

  async import(input: ImportKeyCommand): Promise<Wallet> {
    let key: Uint8Array | undefined;
    try {
      const name = normalizeWalletName(input.name);
      if ((input.privateKey === undefined) === (input.keystore === undefined)) {
        throw invalidArgument('privateKey, keystore: exactly one of them is required');
      }
      const vault = await requireVault(this.repository, input.vaultId);
      const store = this.deps.keyStores.default;
      if (typeof store.importKey !== 'function') {
        throw new DomainError(
          ErrorCode.KEYSTORE_IMPORT_UNSUPPORTED,
          `key store ${store.name} cannot import keys: create the wallet in it instead, or import into a store that can (docs/keystores.md#key-import)`,
        );
      }
      key = input.privateKey ?? (await this.deps.decryptor.decrypt(input.keystore!.json, input.keystore!.password, 'keystore'));
      const address = addressOfPrivateKey(key, input.privateKey ? 'privateKey' : 'keystore');
      await this.refuseKnownAddress(address, vault.id);

      const id = this.deps.ids.next();
      const created = await store.importKey(key, { accountId: vault.accountId, vaultId: vault.id, walletId: id, ...(this.deps.deploymentId ? { deploymentId: this.deps.deploymentId } : {}) });
      key.fill(0);
      if (addressFromPublicKey(created.publicKey) !== address) {
        await store.destroy(created.keyRef).catch(() => undefined);
        throw new DomainError(ErrorCode.KEYSTORE_UNAVAILABLE, `key store ${store.name}: the imported key answers with another public key`);
      }
      const now = this.clock.now();
      const unbound: Wallet = { id, accountId: vault.accountId, vaultId: vault.id, name, address, keyStore: store.name, keyRef: created.keyRef, binding: null, derivationPath: null, exported: null, created: now, updated: now, expires: null, version: 1 };
      let wallet = unbound;
      try {
        // As createWallet: bound by its key before the record exists, the binding written with the record.
        wallet = { ...unbound, binding: await this.deps.bindings.bind(unbound) };
        await this.repository.insertWallet(wallet);
      } catch (error) {
        // No record names the key: it must not outlive this failure (as createWallet). An import racing this
        // one with the same key won the address: its store kept its own reference, this one goes.
        await store.destroy(created.keyRef).catch(() => undefined);
        await this.refuseKnownAddress(address, vault.id);
        throw error;
      }
      await audit(this.deps.auditLog, 'key.imported', now, OPERATOR, vault.id, address, { walletId: id, name, keyStore: store.name, from: input.privateKey ? 'private-key' : 'keystore' });
      return wallet;
    } finally {
      key?.fill(0);
      input.privateKey?.fill(0);
      input.keystore?.password.fill(0);
    }
  }

  /** CONFLICT when a wallet record of this database has the address (one key, one wallet). */
  private async refuseKnownAddress(address: string, vaultId: string): Promise<void> {
    const holder = await this.repository.findWalletByAddress(address);
    if (!holder) return;
    const now = this.clock.now();
    if (holder.vaultId !== vaultId) {
      throw new DomainError(ErrorCode.CONFLICT, `address ${address} is already a wallet of another vault of this database: one key is one wallet; nothing was imported`);
    }
    if (holder.expires !== null && holder.expires.getTime() <= now.getTime()) {
      throw new DomainError(
        ErrorCode.CONFLICT,
        `address ${address} is wallet ${holder.id} of this vault, expired and not yet purged: unexpire it rather than import its key again; nothing was imported`,
      );
    }
    throw new DomainError(ErrorCode.CONFLICT, `address ${address} is already wallet ${holder.id} (${JSON.stringify(holder.name)}) of this vault; nothing was imported`);
  }
}
