import { parseAddress, toChecksumAddress } from '../../domain/address.js';
import { DomainError, ErrorCode, invalidArgument } from '../../domain/errors.js';
import { normalizeWalletName, type Wallet } from '../../domain/wallet.js';
import type { Clock } from '../../ports/clock.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { KeyQuarantine, QuarantinedKey } from '../../ports/key-quarantine.port.js';
import type { KeyStoreRegistry } from '../../ports/key-store.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { auditEvent, OPERATOR } from '../audit/audit-actor.js';
import type { WalletBindings } from '../wallets/wallet-binding.js';
import { requireVault } from '../wallets/wallet-lookup.js';

export const RESTORED_WALLET_NAME = 'restored from quarantine';

/**
 * The operator's decisions on quarantined keys (`wallet-vault keys quarantine list|restore|destroy`):
 * restore gives the key its wallet back, so it signs again; destroy is the only way such a key is
 * ever destroyed. Each is recorded in the audit trail.
 */
export class ManageQuarantine {
  constructor(
    private readonly repository: VaultStore & WalletStore,
    private readonly keyStores: KeyStoreRegistry,
    /** A restored key signs its new wallet's binding (WalletBindings.bind), written with the record. */
    private readonly bindings: WalletBindings,
    private readonly quarantine: KeyQuarantine | undefined,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  list(): Promise<QuarantinedKey[]> {
    return this.quarantine ? this.quarantine.list() : Promise.resolve([]);
  }

  /**
   * A new wallet record for the key at `address`, in the vault the key store recorded for it. `vaultId`
   * is needed where the store records none, or where the recorded vault is not in this database (a
   * backup older than the vault); it is refused when it differs from a recorded vault that exists: the
   * key was made for that vault's callers.
   */
  async restore(input: { address: unknown; vaultId?: string; name?: unknown }): Promise<Wallet> {
    const found = await this.find(input.address);
    const name = normalizeWalletName(input.name ?? RESTORED_WALLET_NAME);
    const key = { ...found, vaultId: await this.storesVault(found, input.vaultId) };
    const recorded = key.vaultId === null ? null : await this.repository.findVault(key.vaultId);
    if (recorded && input.vaultId !== undefined && input.vaultId !== recorded.id) {
      throw invalidArgument(`vault: this key was created for vault ${recorded.id}, not ${input.vaultId}`);
    }
    if (!recorded && input.vaultId === undefined) {
      throw invalidArgument(
        key.vaultId === null
          ? 'vault: required, the key store does not record which vault this key was created for'
          : `vault: required, the key was created for vault ${key.vaultId}, which this database does not hold`,
      );
    }
    const vault = recorded ?? (await requireVault(this.repository, input.vaultId!));
    this.keyStores.get(key.keyStore); // a store that is not configured fails here, before any write
    if (await this.repository.keyRefInUse(key.keyStore, key.keyRef)) throw namedAgain(key);
    const now = this.clock.now();
    const unbound: Wallet = {
      id: this.ids.next(),
      accountId: vault.accountId,
      vaultId: vault.id,
      name,
      address: toChecksumAddress(key.address),
      keyStore: key.keyStore,
      keyRef: key.keyRef,
      binding: null,
      // A restored key's path is not in its file: the wallet comes back as a plain key.
      derivationPath: null, exported: null,
      created: now,
      updated: now,
      expires: null,
      version: 1,
    };
    // The operator's decision binds the key to this vault: its own signature, made before the record exists.
    const wallet: Wallet = { ...unbound, binding: await this.bindings.bind(unbound) };
    await this.repository.insertWallet(wallet);
    // Released with its record in one transaction. A crash before it leaves the key held and named by the
    // new wallet: the next sweep releases it (recorded then, with reason 'a wallet names it again').
    const restored = auditEvent('key.restored', now, OPERATOR, vault.id, wallet.address, {
      walletId: wallet.id,
      keyStore: key.keyStore,
      name,
      recordedVault: key.vaultId,
    });
    await this.quarantine!.remove(key.keyStore, key.keyRef, restored);
    return wallet;
  }

  /**
   * The vault the key store itself records for the key, asked again rather than taken from the quarantine
   * row: a database writer who points that row at a vault of theirs would otherwise have the key restored
   * there, signing for their API keys. A row that disagrees with the store is refused unless the operator
   * names the vault (which must then be the store's, as restore checks); where the store
   * cannot be asked (it lists no keys, or not this one under this deployment), no vault is taken as
   * recorded, so the operator names it (`--vault`), having checked.
   */
  private async storesVault(key: QuarantinedKey, named: string | undefined): Promise<string | null> {
    const store = this.keyStores.get(key.keyStore);
    if (store.listKeys === undefined || this.quarantine === undefined) return null;
    const deploymentId = await this.quarantine.deploymentId();
    const listed = (await store.listKeys({ deploymentId, createdBefore: this.clock.now() })).find((k) => k.keyRef === key.keyRef);
    if (listed === undefined) return null;
    if (named === undefined && key.vaultId !== null && listed.vaultId !== key.vaultId) {
      throw new DomainError(
        ErrorCode.CONFLICT,
        `key ${toChecksumAddress(key.address)}: its quarantine record names vault ${key.vaultId}, but the key store records vault ${listed.vaultId ?? 'none'} for it: ` +
          'a change made in the database; nothing was restored (check the key store, then restore with --vault)',
      );
    }
    return listed.vaultId;
  }

  /** Destroys the key for good (the store's destroy: a KMS key is scheduled for deletion). */
  async destroy(input: { address: unknown }): Promise<QuarantinedKey> {
    const key = await this.find(input.address);
    if (await this.repository.keyRefInUse(key.keyStore, key.keyRef)) throw namedAgain(key);
    await this.keyStores.get(key.keyStore).destroy(key.keyRef);
    // After the destroy: the trail never records a destruction that did not happen. The key leaves the
    // list with its record, in one transaction: a failure before leaves it listed, and destroying again
    // (idempotent in every store) records it, once.
    const destroyed = auditEvent('key.destroyed', this.clock.now(), OPERATOR, key.vaultId, toChecksumAddress(key.address), {
      keyStore: key.keyStore,
    });
    await this.quarantine!.remove(key.keyStore, key.keyRef, destroyed);
    return key;
  }

  private async find(rawAddress: unknown): Promise<QuarantinedKey> {
    const address = parseAddress(rawAddress, 'address', { anyCase: true }).toLowerCase();
    const key = (await this.list()).find((k) => k.address === address);
    if (!key) throw new DomainError(ErrorCode.WALLET_NOT_FOUND, `no quarantined key has address ${toChecksumAddress(address)}`);
    return key;
  }
}

const namedAgain = (key: QuarantinedKey) =>
  new DomainError(ErrorCode.CONFLICT, `a wallet already names the key of ${toChecksumAddress(key.address)}; the next sweep releases it from quarantine`);
