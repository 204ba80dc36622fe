import { DomainError, ErrorCode } from '../domain/errors.js';
import { toHex, type Hex } from '../domain/signing/signable-digest.js';
import type { SignPolicy } from '../domain/sign-policy.js';
import { escapeControlCharacters } from '../domain/unicode.js';
import type { Wallet } from '../domain/wallet.js';
import type { AuditAction, AuditDetails, AuditLog } from '../ports/audit-log.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { KeyStoreRegistry, RecoverableSignature } from '../ports/key-store.port.js';
import type { StandardPayloads } from '../ports/standard-payloads.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { actorOf, audit } from './audit-actor.js';
import type { Principal } from './principal.js';
import { SignerCache } from './wallet-lookup.js';

/** What the three standard-signing use cases are built from. */
export interface StandardSigningDeps {
  readonly repository: WalletRepository;
  readonly keyStores: KeyStoreRegistry;
  readonly payloads: StandardPayloads;
  /** The vault's policy (usually the PolicyCache Sign reads too). */
  readonly policies: { find(vaultId: string): Promise<SignPolicy | null> };
  readonly auditLog: AuditLog;
  readonly clock: Clock;
}

/** Which standard payload a record is about: `sign.denied`'s `payload` detail (Sign's refusals have none). */
export type PayloadKind = 'message' | 'typed-data' | 'transaction';

/**
 * The steps SignMessage, SignTypedData and SignTransaction share: the wallet of the principal's vault,
 * the policy check (a refusal recorded before the 403), the key store's signature over a digest, and
 * the audit record written durably before the signature is returned.
 */
export class StandardSigning {
  private readonly signers: SignerCache;

  constructor(private readonly deps: StandardSigningDeps) {
    this.signers = new SignerCache(deps.repository);
  }

  get payloads(): StandardPayloads {
    return this.deps.payloads;
  }

  /** The wallet at `address` in the principal's vault; an expired or foreign one is WALLET_NOT_FOUND. */
  wallet(principal: Principal, address: unknown): Promise<Wallet> {
    if (typeof address !== 'string') throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'address: must be the wallet address (0x + 40 hex)');
    return this.signers.require(principal.vaultId, address, this.deps.clock.now());
  }

  /** Checks the vault's policy with `violationOf`; a refusal is recorded as `sign.denied`, then thrown as POLICY_DENIED. */
  async enforce(
    principal: Principal,
    wallet: Wallet,
    payload: PayloadKind,
    violationOf: (policy: SignPolicy | null) => string | null,
    facts: AuditDetails,
  ): Promise<void> {
    const violation = violationOf(await this.deps.policies.find(principal.vaultId));
    if (violation === null) return;
    await audit(this.deps.auditLog, 'sign.denied', this.deps.clock.now(), actorOf(principal), principal.vaultId, wallet.address, {
      ...facts,
      payload,
      rule: violation,
      wallet: wallet.address,
    });
    throw new DomainError(ErrorCode.POLICY_DENIED, violation);
  }

  /** The wallet's key store signs the 32-byte digest as it is. */
  sign(wallet: Wallet, digest: Uint8Array): Promise<RecoverableSignature> {
    return this.deps.keyStores.get(wallet.keyStore).sign(wallet.keyRef, digest);
  }

  /** The signature's record, durable before the caller answers: a signature is never handed out unrecorded. */
  record(principal: Principal, wallet: Wallet, action: AuditAction, details: AuditDetails): Promise<void> {
    return audit(this.deps.auditLog, action, this.deps.clock.now(), actorOf(principal), principal.vaultId, wallet.address, {
      ...details,
      wallet: wallet.address,
    });
  }
}

/** A command of the standard-signing use cases: who asks, the wallet (its address in any case), and what to sign. */
export type WalletCommand<T> = { readonly principal: Principal; readonly address: string } & Readonly<T>;

/** The base of SignMessage, SignTypedData and SignTransaction: the shared steps over the same dependencies. */
export abstract class StandardSigningUseCase {
  protected readonly signing: StandardSigning;

  constructor(deps: StandardSigningDeps) {
    this.signing = new StandardSigning(deps);
  }
}

/** 65 bytes r ‖ s ‖ v (v 27 or 28), as eth_sign, personal_sign and eth_signTypedData_v4 answer. */
export function signatureHex(signature: RecoverableSignature): Hex {
  return `${toHex(signature.r)}${toHex(signature.s).slice(2)}${signature.v.toString(16)}` as Hex;
}

const MAX_RECORDED_TEXT = 200;

/** Caller-chosen text (a typed-data domain name) as an audit detail: control characters escaped, cut to 200 characters. */
export function recordedText(text: string | null): string | null {
  if (text === null) return null;
  const escaped = escapeControlCharacters(text);
  return escaped.length > MAX_RECORDED_TEXT ? `${escaped.slice(0, MAX_RECORDED_TEXT - 3)}...` : escaped;
}
