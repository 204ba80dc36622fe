import { DomainError, ErrorCode } from '../../domain/errors.js';
import { toHex } from '../../domain/signing/signable-digest.js';
import { boundRowKey, walletBindingDigest, type BoundFields } from '../../domain/wallet-binding.js';
import type { Wallet } from '../../domain/wallet.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { KeyStoreRegistry, RecoverableSignature } from '../../ports/key-store.port.js';
import type { StandardPayloads } from '../../ports/standard-payloads.port.js';
import { audit, SYSTEM } from '../audit/audit-actor.js';

export interface WalletBindingsDeps {
  readonly keyStores: KeyStoreRegistry;
  /** Recovers the address that signed a digest (the payloads port: ethers in the Ethereum adapter). */
  readonly recovery: Pick<StandardPayloads, 'recoverDigestSigner'>;
  /** Where a refusal is recorded (`wallet.binding-invalid`), once per row state and instance. */
  readonly auditLog: AuditLog;
  readonly clock: Clock;
}

/** What is wrong with a row's binding: none at all, or one its key did not sign for the row as it is. */
export type BindingProblem = 'unbound' | 'mismatch';

/** Rows whose check is remembered at most (the sign path's signers; a forgotten one is checked again). */
const MAX_CHECKED = 10_000;

/**
 * A wallet's binding (src/domain/wallet-binding.ts): made by the wallet's own key when the wallet is made,
 * checked before every signature. This is the only way a use case reaches KeyStore.sign for a wallet
 * (`sign`), so no signing route, release or in-process call can sign with a row its key was not bound to:
 * a row a database writer moved to another vault, or pointed at another wallet's key (key_ref, key_store)
 * or address, fails the check, whichever store holds the key, because the check is a signature of the key
 * itself, recovered here, and the database cannot make one.
 *
 * The outcome for a row is remembered by the row's exact fields and binding, so the sign path pays one
 * recovery per row and instance: a row that changes in any of them is a new row, checked again.
 */
export class WalletBindings {
  /** Checked rows by boundRowKey: null when the binding holds, else what is wrong. Oldest first. */
  private readonly checked = new Map<string, BindingProblem | null>();
  /**
   * Row objects whose binding held: the signer cache hands the same (immutable) object to every sign for a
   * few seconds, so those signs skip even building the row's key. A row read again is a new object.
   */
  private readonly held = new WeakSet<Wallet>();

  constructor(private readonly deps: WalletBindingsDeps) {}

  /**
   * The binding of `wallet` as it is to be written: the key its row names signs the binding digest, which
   * must recover to the row's address. A key reference that names another key (a row a database writer
   * pointed elsewhere, a store answering with another key) is WALLET_BINDING_INVALID, nothing bound.
   */
  async bind(wallet: BoundFields): Promise<string> {
    const digest = walletBindingDigest(wallet);
    const signature = await this.deps.keyStores.get(wallet.keyStore).sign(wallet.keyRef, digest);
    const binding = toHex(Buffer.concat([signature.r, signature.s, Uint8Array.of(signature.v)]));
    if (this.deps.recovery.recoverDigestSigner(digest, binding) !== wallet.address) {
      throw new DomainError(
        ErrorCode.WALLET_BINDING_INVALID,
        `wallet ${wallet.address}: the key its row names (key store ${wallet.keyStore}) is not the key of ${wallet.address}; nothing was bound`,
      );
    }
    return binding;
  }

  /** Null when the row's binding holds for the row as it is; else what is wrong (remembered per exact row). */
  problemOf(wallet: Wallet): BindingProblem | null {
    return this.check(wallet, boundRowKey(wallet)).problem;
  }

  /**
   * The wallet's key signs `digest`, once its binding holds for the row as it was read: otherwise
   * WALLET_BINDING_INVALID, nothing signed, recorded as `wallet.binding-invalid` the first time this
   * instance sees the row so.
   */
  sign(wallet: Wallet, digest: Uint8Array): Promise<RecoverableSignature> {
    // The hot path: a row object verified before signs at the cost of one look-up.
    if (this.held.has(wallet)) return this.deps.keyStores.get(wallet.keyStore).sign(wallet.keyRef, digest);
    return this.checkedSign(wallet, boundRowKey(wallet), digest);
  }

  private async checkedSign(wallet: Wallet, key: string, digest: Uint8Array): Promise<RecoverableSignature> {
    const { problem, fresh } = this.check(wallet, key);
    if (problem === null) {
      this.held.add(wallet);
      return this.deps.keyStores.get(wallet.keyStore).sign(wallet.keyRef, digest);
    }
    if (fresh) {
      await audit(this.deps.auditLog, 'wallet.binding-invalid', this.deps.clock.now(), SYSTEM, wallet.vaultId, wallet.address, {
        walletId: wallet.id,
        keyStore: wallet.keyStore,
        problem,
      });
    }
    throw refusal(wallet, problem);
  }

  /** The row's outcome, and whether this call found it (rather than remembered it). */
  private check(wallet: Wallet, key: string): { problem: BindingProblem | null; fresh: boolean } {
    const known = this.checked.get(key);
    if (known !== undefined) return { problem: known, fresh: false };
    const problem = wallet.binding === null ? 'unbound' : this.holds(wallet, wallet.binding) ? null : 'mismatch';
    if (this.checked.size >= MAX_CHECKED) this.checked.delete(this.checked.keys().next().value as string);
    this.checked.set(key, problem);
    return { problem, fresh: true };
  }

  private holds(wallet: Wallet, binding: string): boolean {
    let digest: Uint8Array;
    try {
      digest = walletBindingDigest(wallet);
    } catch {
      return false; // an address that is not one (a row written by hand) binds nothing
    }
    return this.deps.recovery.recoverDigestSigner(digest, binding) === wallet.address;
  }
}

function refusal(wallet: Wallet, problem: BindingProblem): DomainError {
  const why =
    problem === 'unbound'
      ? `its row carries no binding of its key to vault ${wallet.vaultId} (every wallet is bound when it is made, and by the upgrade that introduced bindings)`
      : 'its row does not match the vault its key was bound to (its vault, key store or key reference was changed since)';
  return new DomainError(ErrorCode.WALLET_BINDING_INVALID, `wallet ${wallet.address}: ${why}, which points to a change made in the database; nothing was signed (docs/security.md)`);
}
