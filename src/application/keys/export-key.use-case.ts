import { addressOfPrivateKey } from '../../domain/private-key.js';
import { parseAddress } from '../../domain/address.js';
import { DomainError, ErrorCode, invalidArgument } from '../../domain/errors.js';
import type { GovernedExport } from '../../domain/governance.js';
import type { Wallet } from '../../domain/wallet.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { KeyExportEnvelope, KeyExportSealer } from '../../ports/key-export-sealer.port.js';
import type { KeyStore, KeyStoreRegistry } from '../../ports/key-store.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { auditEvent, OPERATOR } from '../audit/audit-actor.js';
import { requireVault, requireWallet } from '../wallets/wallet-lookup.js';

/** What a key export takes: one wallet's key (`wallet`, its address) or the vault's HD seed (`seed`), and the recipient's X25519 public key. */
export interface ExportKeyCommand {
  readonly vaultId: string;
  /** The wallet's address, any case; exactly one of `wallet` and `seed`. */
  readonly wallet?: string;
  readonly seed?: boolean;
  /** The recipient's X25519 public key, 32 raw bytes. */
  readonly recipientPublicKey: Uint8Array;
  /** Who asks (default `operator`, the local CLI). */
  readonly actor?: string;
}

/** Done: the envelope for the recipient (nothing in it opens without the recipient's private key). */
export interface KeyExported {
  readonly envelope: KeyExportEnvelope;
  readonly exported: Date;
  /** The governed export entry it carried out, or null on an ungoverned vault. */
  readonly authorization: string | null;
}

/** A governed vault's export not yet allowed: the proposal made for it, which M approvers sign. */
export interface ExportProposed {
  readonly proposal: { readonly id: string; readonly documentHash: string; readonly entry: string };
  readonly recipient: string;
}

export type ExportKeyResult = KeyExported | ExportProposed;

/** What a governed vault's export asks of governance (Governance implements it). */
export interface ExportGovernance {
  /**
   * The exports the verified state in force allows, and the pending proposals that would allow more;
   * null when the vault is not governed. Reading applies a proposal whose quorum and delay are complete.
   */
  exportsOf(vaultId: string): Promise<{
    readonly inForce: readonly GovernedExport[];
    readonly pending: readonly { readonly id: string; readonly exports: readonly GovernedExport[]; readonly approvals: number; readonly required: number; readonly effectiveAt: Date | null }[];
  } | null>;
  /** A proposal of the state in force with `entry` allowed. */
  proposeExport(vaultId: string, entry: Omit<GovernedExport, 'id'>, actor: string): Promise<{ id: string; documentHash: string; entry: string }>;
}

export interface ExportKeyDeps {
  readonly repository: VaultStore & WalletStore;
  readonly keyStores: KeyStoreRegistry;
  readonly sealer: KeyExportSealer;
  readonly governance: ExportGovernance;
  /**
   * The policy as every signature reads it: its `forSigning` refuses a frozen vault (VAULT_FROZEN) and a
   * governed one whose state does not verify (GOVERNANCE_UNVERIFIED). A freeze stops signing; it must stop
   * a key leaving the vault too (PolicyCache).
   */
  readonly policies: { forSigning(vaultId: string): Promise<unknown> };
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly auditLog: AuditLog;
}

/**
 * `wallet-vault keys export` (docs/keystores.md#key-export): a wallet's private key, or its vault's HD seed,
 * leaves the vault only encrypted to a recipient's public key (KeyExportSealer: HPKE), and is marked
 * `exported` for ever.
 *
 * - A store whose keys never leave it (no `exportKey`/`exportSeed`) refuses, KEYSTORE_EXPORT_UNSUPPORTED
 *   naming it, before anything else (no proposal is made for what can never be done).
 * - A governed vault exports only what a state in force allows (an entry of `exports`: kind, wallet and
 *   the very recipient key, signed by M approvers, after the delay), each entry once. Without one, the
 *   first ask proposes it (the answer is the proposal); while that proposal waits, EXPORT_NOT_AUTHORIZED
 *   names it.
 * - The export record, the `exported` mark and the `key.exported` audit record (actor, kind, wallet,
 *   recipient fingerprint, governed entry) are one transaction; the envelope is answered only after it.
 * - The key is in memory only between its store and the sealer, zeroed on every path; it is never in an
 *   error, a record or the answer.
 */
export class ExportKey {
  constructor(private readonly deps: ExportKeyDeps) {}

  async export(input: ExportKeyCommand): Promise<ExportKeyResult> {
    const actor = input.actor ?? OPERATOR;
    if ((input.wallet === undefined) === (input.seed !== true)) throw invalidArgument('wallet, seed: exactly one of them is required');
    if (!(input.recipientPublicKey instanceof Uint8Array) || input.recipientPublicKey.length !== 32) throw invalidArgument('recipientPublicKey: an X25519 public key, 32 bytes');
    const vault = await requireVault(this.deps.repository, input.vaultId);
    const wallet = input.wallet !== undefined ? await requireWallet(this.deps.repository, vault.id, parseAddress(input.wallet, 'wallet', { anyCase: true }), this.deps.clock.now()) : null;
    const store = wallet ? this.deps.keyStores.get(wallet.keyStore) : this.deps.keyStores.default;
    refuseUnexportable(store, wallet === null);
    const recipient = this.deps.sealer.fingerprint(input.recipientPublicKey);
    const kind = wallet ? ('wallet' as const) : ('hd-seed' as const);

    const governed = await this.deps.governance.exportsOf(vault.id);
    let candidates: (string | null)[] = [null];
    if (governed !== null) {
      const matches = (e: GovernedExport) => e.kind === kind && e.wallet === (wallet?.address ?? null) && e.recipient === recipient;
      candidates = governed.inForce.filter(matches).map((e) => e.id);
      if (candidates.length === 0) return this.proposeOrWait(vault.id, governed.pending, matches, { kind, wallet: wallet?.address ?? null, recipientKey: Buffer.from(input.recipientPublicKey).toString('base64url'), recipient }, actor);
    }

    // Checked last before the key is read: a proposal may be made on a frozen vault, nothing leaves it.
    await this.deps.policies.forSigning(vault.id);
    const envelope = await this.seal(store, vault.id, wallet, input.recipientPublicKey);
    const at = this.deps.clock.now();
    for (const authorization of candidates) {
      const record = { id: this.deps.ids.next(), vaultId: vault.id, kind, walletId: wallet?.id ?? null, recipient, authorization, actor, at };
      const event = auditEvent('key.exported', at, actor, vault.id, wallet?.address ?? vault.id, {
        kind,
        ...(wallet ? { walletId: wallet.id, keyStore: wallet.keyStore } : { keyStore: store.name }),
        recipient,
        authorization,
      });
      if (await this.deps.repository.recordExport(record, event)) return { envelope, exported: at, authorization };
    }
    // Every entry in force that allows it was carried out already: one more export needs one more quorum.
    const again = await this.deps.governance.exportsOf(vault.id);
    const matches = (e: GovernedExport) => e.kind === kind && e.wallet === (wallet?.address ?? null) && e.recipient === recipient && !candidates.includes(e.id);
    return this.proposeOrWait(vault.id, again?.pending ?? [], matches, { kind, wallet: wallet?.address ?? null, recipientKey: Buffer.from(input.recipientPublicKey).toString('base64url'), recipient }, actor);
  }

  private async proposeOrWait(
    vaultId: string,
    pending: NonNullable<Awaited<ReturnType<ExportGovernance['exportsOf']>>>['pending'],
    matches: (e: GovernedExport) => boolean,
    entry: Omit<GovernedExport, 'id'>,
    actor: string,
  ): Promise<ExportProposed> {
    const waiting = pending.find((p) => p.exports.some(matches));
    if (waiting) {
      const when = waiting.effectiveAt ? `; it takes effect at ${waiting.effectiveAt.toISOString()}` : '';
      throw new DomainError(
        ErrorCode.EXPORT_NOT_AUTHORIZED,
        `vault ${vaultId} is governed: this export waits for proposal ${waiting.id} (${waiting.approvals} of ${waiting.required} signatures${when}); run it again once it is in force`,
      );
    }
    const proposal = await this.deps.governance.proposeExport(vaultId, entry, actor);
    return { proposal, recipient: entry.recipient };
  }

  private async seal(store: KeyStore, vaultId: string, wallet: Wallet | null, recipientPublicKey: Uint8Array): Promise<KeyExportEnvelope> {
    if (wallet === null) {
      const seed = await store.exportSeed!(vaultId);
      if (seed === null) throw new DomainError(ErrorCode.CONFLICT, `vault ${vaultId} has no HD seed: it is made with its first derived wallet ("derivation": "hd")`);
      try {
        return await this.deps.sealer.seal(seed, recipientPublicKey, { kind: 'hd-seed', vault: vaultId });
      } finally {
        seed.fill(0);
      }
    }
    const key = await store.exportKey!(wallet.keyRef);
    try {
      // The store checks its reference; this checks the wallet: a row pointed at another key exports nothing.
      if (addressOfPrivateKey(key, 'key') !== wallet.address) throw new DomainError(ErrorCode.WALLET_BINDING_INVALID, `wallet ${wallet.address}: its key store answers with another key; nothing was exported`);
      return await this.deps.sealer.seal(key, recipientPublicKey, {
        kind: 'wallet',
        vault: vaultId,
        wallet: wallet.address,
        ...(wallet.derivationPath ? { derivationPath: wallet.derivationPath } : {}),
      });
    } finally {
      key.fill(0);
    }
  }
}

function refuseUnexportable(store: KeyStore, seed: boolean): void {
  const can = seed ? typeof store.exportSeed === 'function' : typeof store.exportKey === 'function';
  if (can) return;
  throw new DomainError(
    ErrorCode.KEYSTORE_EXPORT_UNSUPPORTED,
    seed
      ? `key store ${store.name} keeps no HD seed to export (docs/keystores.md#key-export)`
      : `key store ${store.name} cannot export keys: its keys never leave it (docs/keystores.md#key-export)`,
  );
}
