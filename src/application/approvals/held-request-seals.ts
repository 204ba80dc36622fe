import type { Approval } from '../../domain/approval.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import { heldRequestSealDigest, type SealedFields } from '../../domain/held-request-seal.js';
import { toHex } from '../../domain/signing/signable-digest.js';
import type { Wallet } from '../../domain/wallet.js';
import type { StandardPayloads } from '../../ports/standard-payloads.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import type { WalletBindings } from '../wallets/wallet-binding.js';

export interface HeldRequestSealsDeps {
  /** The held request's wallet signs its seal through the check of its binding, as every signature does. */
  readonly bindings: Pick<WalletBindings, 'sign' | 'problemOf'>;
  /** Recovers the wallet that sealed (the payloads port: ethers in the Ethereum adapter). */
  readonly recovery: Pick<StandardPayloads, 'recoverDigestSigner'>;
  /** Finds the sealing wallet's row, whose own binding must hold for the approval's vault. */
  readonly wallets: Pick<WalletStore, 'findWalletByAddress'>;
}

/** The seal of `fields`, by `wallet`'s key (WALLET_BINDING_INVALID when the wallet's row is not bound). */
export async function sealHeldRequest(bindings: Pick<WalletBindings, 'sign'>, wallet: Wallet, fields: SealedFields): Promise<string> {
  const s = await bindings.sign(wallet, heldRequestSealDigest(fields));
  return toHex(Buffer.concat([s.r, s.s, Uint8Array.of(s.v)]));
}

/**
 * Checks of held requests' seals (src/domain/held-request-seal.ts): made by the request's wallet when it is held,
 * checked by an approve vote and again by the release, from the row as stored. A seal holds when it
 * recovers to a wallet whose row is bound to the approval's vault: only a key of that vault can have made
 * it, so a requester or an expiry a database writer rewrote, or an approval row it inserted, is refused.
 * Any wallet of the vault will do (a Sign call's signer is read from its contract again at the release,
 * and may since be another wallet of the vault).
 */
export class HeldRequestSeals {
  constructor(private readonly deps: HeldRequestSealsDeps) {}

  /** Whether `approval`'s row carries a seal of a wallet of its vault over its fields as they are. */
  async holds(approval: Approval): Promise<boolean> {
    if (typeof approval.seal !== 'string') return false;
    let address: string | null;
    try {
      address = this.deps.recovery.recoverDigestSigner(heldRequestSealDigest(approval), approval.seal);
    } catch {
      return false; // a field no release wrote (a time out of range, a hash that is none): sealed by nobody
    }
    if (address === null) return false;
    const wallet = await this.deps.wallets.findWalletByAddress(address);
    return wallet !== null && wallet.vaultId === approval.vaultId && this.deps.bindings.problemOf(wallet) === null;
  }

  /** APPROVAL_RECORD_INVALID unless `approval`'s seal holds (holds). */
  async require(approval: Approval): Promise<void> {
    if (await this.holds(approval)) return;
    throw new DomainError(
      ErrorCode.APPROVAL_RECORD_INVALID,
      `approval ${approval.id}: its row does not carry the seal its wallet made when it was held (its requester, expiry or request was changed in the database, or it was held by a release before seals); it is never released: ask for it again (docs/security.md)`,
    );
  }
}
