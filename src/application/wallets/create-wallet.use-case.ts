import { addressFromPublicKey } from '../../domain/address.js';
import { DomainError, ErrorCode, invalidArgument } from '../../domain/errors.js';
import { normalizeWalletName, type Wallet } from '../../domain/wallet.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { CreatedKey, DerivedKey, KeyOwner, KeyStore, KeyStoreRegistry } from '../../ports/key-store.port.js';
import type { IdempotencyRecord, IdempotencyStore } from '../../ports/idempotency-store.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { actorOf, audit } from '../audit/audit-actor.js';
import type { Principal } from '../access/authenticate.use-case.js';
import {
  decodeCreatedWallet,
  encodeCreatedWallet,
  IDEMPOTENCY_TTL_MS,
  idempotencyConflict,
  requestHash,
  type IdempotentRequest,
} from '../shared/idempotency.js';
import type { WalletBindings } from './wallet-binding.js';
import { requireVault } from './wallet-lookup.js';

/** A wallet to create in the caller's vault; with `idempotency`, a retry of the same request creates nothing. */
export interface CreateWalletCommand {
  readonly principal: Principal;
  /** Trimmed, 1 to WALLET_NAME_MAX code points (the domain checks it). */
  readonly name: string;
  /** `hd`: the key derived from the vault's HD seed at its next index (KeyStore.deriveKey); absent: a generated key. */
  readonly derivation?: 'hd';
  readonly idempotency?: IdempotentRequest;
}

export class CreateWallet {
  constructor(
    private readonly repository: VaultStore & WalletStore & IdempotencyStore,
    private readonly keyStores: KeyStoreRegistry,
    /** The new key signs the wallet's binding to its vault (WalletBindings.bind), written with the record. */
    private readonly bindings: WalletBindings,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly auditLog: AuditLog,
    /** Recorded on every key created, so the orphan sweep knows this deployment's keys (null: none). */
    private readonly deploymentId: string | null = null,
  ) {}

  /**
   * The key is durable in its store before the record naming it is committed, and the record is
   * committed before this resolves: an acknowledged wallet survives a crash at any instant.
   *
   * With `idempotency`, a retry of the same body within 24 hours returns the first wallet and creates
   * nothing; another body is IDEMPOTENCY_CONFLICT. Concurrent requests with one key race to commit; the
   * repository lets exactly one record in, the losers destroy the keys they made and answer with the
   * winner's wallet.
   */
  async execute(input: CreateWalletCommand): Promise<Wallet> {
    const { principal, idempotency } = input;
    const name = normalizeWalletName(input.name);
    const vault = await requireVault(this.repository, principal.vaultId);
    const hash = idempotency ? requestHash(idempotency.body) : undefined;
    if (idempotency) {
      const earlier = await this.repository.findIdempotency(vault.id, idempotency.key, this.clock.now());
      if (earlier) return this.replay(earlier, hash!);
    }

    const store = this.keyStores.default;
    const id = this.ids.next();
    const owner = { accountId: vault.accountId, vaultId: vault.id, walletId: id, ...(this.deploymentId ? { deploymentId: this.deploymentId } : {}) };
    const key: CreatedKey & { readonly derivationPath?: string } = input.derivation === 'hd' ? await this.derive(store, owner, principal) : await store.create(owner);
    const now = this.clock.now();
    const unbound: Wallet = {
      id,
      accountId: vault.accountId,
      vaultId: vault.id,
      name,
      address: addressFromPublicKey(key.publicKey),
      keyStore: store.name,
      keyRef: key.keyRef,
      binding: null,
      derivationPath: key.derivationPath ?? null,
      // A wallet derived from a seed that was exported is known outside the vault from its first moment.
      exported: key.derivationPath ? await this.repository.seedExported(vault.id) : null,
      created: now,
      updated: now,
      expires: null,
      version: 1,
    };
    let wallet = unbound;
    try {
      // Bound before the record exists, in the same write as the record: no moment when the wallet is unbound.
      wallet = { ...unbound, binding: await this.bindings.bind(unbound) };
      const record: IdempotencyRecord | undefined = idempotency && {
        vaultId: vault.id,
        key: idempotency.key,
        requestHash: hash!,
        response: encodeCreatedWallet(wallet),
        created: now,
        expires: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      };
      await this.repository.insertWallet(wallet, record);
    } catch (error) {
      // No record names the key, so it must not outlive this failure (the orphan sweep quarantines it otherwise).
      // A derived key may be another wallet's (an index reused since the check below): that one is kept.
      const another = key.derivationPath !== undefined && (await this.repository.keyRefInUse(store.name, key.keyRef).catch(() => true));
      if (!another) await store.destroy(key.keyRef).catch(() => undefined);
      if (idempotency && error instanceof DomainError && error.code === ErrorCode.IDEMPOTENCY_CONFLICT) {
        // Lost the race to a request with the same key: its committed answer is ours too.
        const winner = await this.repository.findIdempotency(vault.id, idempotency.key, now);
        if (winner) return this.replay(winner, hash!);
      }
      throw error;
    }
    await audit(this.auditLog, 'wallet.created', now, actorOf(principal), vault.id, wallet.address, {
      walletId: wallet.id,
      name: wallet.name,
      keyStore: wallet.keyStore,
      ...(wallet.derivationPath ? { derivationPath: wallet.derivationPath } : {}),
    });
    return wallet;
  }

  /**
   * The key at the vault's next HD index: the index is reserved (durably, never handed out again) before
   * the key is derived, so two wallets never share one even across a crash or a failed insert.
   */
  private async derive(store: KeyStore, owner: KeyOwner, principal: Principal): Promise<DerivedKey> {
    if (!store.deriveKey) {
      throw invalidArgument(`derivation: key store ${store.name} cannot derive HD wallets (its keys never leave it); leave out "derivation" for a generated key, or derive in a store that holds key material (local)`);
    }
    const index = await this.repository.reserveDerivationIndex(owner.vaultId);
    const key = await store.deriveKey(index, owner);
    // An index is never handed out twice, so a key some wallet already holds means hd_indexes was lowered
    // in the database: the new wallet would share that wallet's key (and a failed insert would destroy it).
    // Refused, never destroyed; the index has moved on, so a retry derives the next one.
    if (await this.repository.keyRefInUse(store.name, key.keyRef)) {
      const address = addressFromPublicKey(key.publicKey);
      await audit(this.auditLog, 'records.missing', this.clock.now(), actorOf(principal), owner.vaultId, address, { table: 'hd_indexes', index: String(index), wallet: address });
      throw new DomainError(
        ErrorCode.CONFLICT,
        `derivation: index ${index} of this vault's HD seed is already the key of wallet ${address}: the vault's next index (hd_indexes) was lowered in the database; nothing was created, and the next request derives the next index`,
      );
    }
    return key;
  }

  /**
   * The first answer, once the wallet it names is checked to be this vault's: a wallet whose row is bound
   * to the vault (deleted since or not). The stored answer is a row a database writer can rewrite, and a
   * client that retried would otherwise take an address of the writer's choosing for its new wallet (and
   * send funds there).
   */
  private async replay(earlier: IdempotencyRecord, hash: string): Promise<Wallet> {
    if (earlier.requestHash !== hash) throw idempotencyConflict();
    let answer: Wallet | null = null;
    try {
      answer = decodeCreatedWallet(earlier.response);
    } catch {
      // unreadable: written by no release, so answered as a forged one
    }
    const address = typeof answer?.address === 'string' ? answer.address : null;
    const row = address === null ? null : await this.repository.findWalletByAddress(address);
    if (answer === null || row === null || row.vaultId !== earlier.vaultId || answer.vaultId !== earlier.vaultId || this.bindings.problemOf(row) !== null) {
      throw new DomainError(
        ErrorCode.WALLET_BINDING_INVALID,
        `Idempotency-Key: the answer stored for it names ${address === null ? 'no wallet' : `wallet ${address}`}, which is no wallet bound to vault ${earlier.vaultId}: a change made in the database; nothing was answered (docs/security.md)`,
      );
    }
    return answer;
  }
}
