import { createHash } from 'node:crypto';
import { parseAddress } from '../domain/address.js';
import { effectiveStatus, type Approval } from '../domain/approval.js';
import { approvalRuleFor, DEFAULT_APPROVAL_EXPIRY_MS, type ApprovalRule } from '../domain/approval-rules.js';
import type { ParsedFunction } from '../domain/signing/abi-function.js';
import type { AbiValue } from '../domain/signing/argument-coercion.js';
import type { Wallet } from '../domain/wallet.js';
import type { ApprovalStore, NewApproval } from '../ports/approval-store.port.js';
import type { IdGenerator } from '../ports/id-generator.port.js';
import type { SignatureRecord } from '../ports/signature-log.port.js';
import { argumentRuleViolation } from '../domain/argument-rules.js';
import { DomainError, ErrorCode, invalidArgument } from '../domain/errors.js';
import { coerceArguments } from '../domain/signing/argument-coercion.js';
import {
  argsWithSignature,
  encodeMessage,
  signableDigest,
  submissionHash,
  toHex,
  type Hex,
  type SignatureStruct,
} from '../domain/signing/signable-digest.js';
import { signCountDemands, type SignLimit } from '../domain/sign-limits.js';
import { pinnedUniqViolation, signPolicyViolation, type SignPolicy, type SignRequestFacts } from '../domain/sign-policy.js';
import type { AuditEvent, AuditLog } from '../ports/audit-log.port.js';
import type { ChainReader } from '../ports/chain-reader.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { KeyStoreRegistry } from '../ports/key-store.port.js';
import type { SignCounter } from '../ports/sign-counter.port.js';
import type { SignatureLog } from '../ports/signature-log.port.js';
import { canonicalJson } from './idempotency.js';
import type { WalletStore } from '../ports/wallet-store.port.js';
import { AbiFunctionCache } from './abi-function-cache.js';
import { actorOf, audit } from './audit-actor.js';
import type { Principal } from './authenticate.use-case.js';
import { SignerCache } from './wallet-lookup.js';

/** The chains of the interface; an operator may add more (the composition root passes the full list). */
export const CHAINS = ['ethereum', 'sepolia', 'bsc', 'bsc-testnet', 'polygon', 'amoy', 'avalanche', 'fuji', 'local'] as const;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const LOWER_BYTES32 = /^0x[0-9a-f]{64}$/;

export interface SignResult {
  readonly submissionHash: string;
  readonly args: unknown[];
}

/** A sign an approval rule holds: nothing is signed until its quorum approves (`status` pending). */
export interface ApprovalRequested {
  readonly approval: Approval;
}

/** What Sign answers: the signature, or the approval that holds it (`'approval' in outcome`). */
export type SignOutcome = SignResult | ApprovalRequested;

/** The state of an approval as Sign answers it: pending as the approval, approved as its result, otherwise refused. */
export function approvalOutcome(approval: Approval, now: Date): SignOutcome {
  switch (effectiveStatus(approval, now)) {
    case 'pending':
      return { approval };
    case 'approved':
      return JSON.parse(approval.result!) as SignResult;
    case 'rejected':
      throw new DomainError(ErrorCode.APPROVAL_REJECTED, `approval ${approval.id}: the request was rejected; it is never signed`);
    case 'expired':
      throw new DomainError(ErrorCode.APPROVAL_EXPIRED, `approval ${approval.id}: the request expired before its quorum; it is never signed`);
  }
}

/** The command's fields as asked (undefined ones left out): what an approval stores and approves. */
const requestFields = (c: SignCallCommand): Omit<SignCallCommand, 'principal' | 'idempotencyKey'> => ({
  chain: c.chain,
  contract: c.contract,
  sender: c.sender,
  ...(c.uniq === undefined ? {} : { uniq: c.uniq }),
  ...(c.signer === undefined ? {} : { signer: c.signer }),
  abi: c.abi,
  args: c.args,
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What prepare() found: the request parsed, the policy, the uniq and the wallet that signs. */
interface Prepared {
  readonly principal: Principal;
  readonly vaultId: string;
  readonly chain: string;
  readonly contract: string;
  readonly sender: Hex;
  readonly fn: ParsedFunction;
  readonly abiKey: string;
  readonly cached: boolean;
  readonly args: readonly AbiValue[];
  readonly message: Hex;
  readonly policy: SignPolicy | null;
  readonly facts: SignRequestFacts;
  readonly uniq: Hex;
  readonly wallet: Wallet;
  readonly now: Date;
}

/** The single ABI item of the function being signed; its shape is checked by the ABI parse (abi-function.ts). */
export interface SignAbiItem {
  readonly type?: string | null;
  readonly name: string;
  readonly inputs: readonly unknown[];
}

/** A Sign: exactly the fields of the interface's Sign body, for the caller `principal`. */
export interface SignCallCommand {
  readonly principal: Principal;
  /** One of `SignCall.chains`. */
  readonly chain: string;
  readonly contract: string;
  readonly sender: string;
  /** The contract's `uniq()`: required for `local` and chains without an RPC. */
  readonly uniq?: string;
  /** The contract's `signer()`, a wallet of the vault: required for `local` and chains without an RPC. */
  readonly signer?: string;
  readonly abi: SignAbiItem;
  /** The function's arguments without the signature parameter (a non-array is refused once the ABI is read). */
  readonly args: readonly unknown[];
  /**
   * Binds a sign an approval rule holds to this key (per vault): a repeat with the same key and fields
   * answers the approval's state instead of asking again (see execute). 1 to 255 characters.
   */
  readonly idempotencyKey?: string;
}

/**
 * The checks of each Sign field on its own, in the order Sign makes them: the HTTP adapter's schema runs
 * these same functions, so a body is refused in one wording whichever layer sees it first.
 */
export const signFieldChecks = {
  chain(raw: unknown, chains: readonly string[]): string {
    if (typeof raw !== 'string' || !chains.includes(raw)) throw invalidArgument(`chain: must be one of ${chains.join(', ')}`);
    return raw;
  },
  contract: (raw: unknown): string => parseAddress(raw, 'contract'),
  sender: (raw: unknown): string => parseAddress(raw, 'sender'),
  abi: (raw: unknown): SignAbiItem => required(raw, 'abi') as SignAbiItem,
  args: (raw: unknown): readonly unknown[] => required(raw, 'args') as readonly unknown[],
  uniq: (raw: unknown): Hex | undefined => optionalBytes32(raw, 'uniq'),
  signer: (raw: unknown): string | undefined => (raw === undefined ? undefined : parseAddress(raw, 'signer')),
} as const;

function required(raw: unknown, field: string): unknown {
  if (raw === undefined) throw invalidArgument(`${field}: is required`);
  return raw;
}

/**
 * Signs a contract call for a signable contract: the vault wallet named by the contract's signer() signs
 * keccak256(abi.encode(uniq, nonce, sender, abi.encode(selector, ...args))).
 */
export class SignCall {
  /** Parsed ABI items, filled only by signs that succeeded. */
  readonly functions: AbiFunctionCache;
  private readonly signers: SignerCache;

  constructor(
    private readonly repository: WalletStore,
    private readonly keyStores: KeyStoreRegistry,
    private readonly chainReader: ChainReader,
    private readonly signatureLog: SignatureLog,
    private readonly clock: Clock,
    private readonly random: (n: number) => Uint8Array,
    /** The vault's policy (usually a PolicyCache: this is read on every sign). */
    private readonly policies: { find(vaultId: string): Promise<SignPolicy | null> },
    private readonly auditLog: AuditLog,
    /** Chain names a request may give: the interface's and any the operator added. */
    readonly chains: readonly string[] = CHAINS,
    abiCacheBytes?: number,
    /** Counts signs for the policy's limits per window; read only when the policy has limits. */
    private readonly signCounter?: SignCounter,
    /** Holds signs for a quorum; without it, a sign an approval rule matches is refused. */
    private readonly approvals?: ApprovalStore,
    /** Ids of new approvals. */
    private readonly ids?: IdGenerator,
  ) {
    this.signers = new SignerCache(repository);
    this.functions = new AbiFunctionCache(abiCacheBytes);
  }

  /**
   * Signs, or holds the sign for a quorum when one of the policy's approval rules matches it (after every
   * other check passed, before sign limits count it and before any key signs): the request is stored
   * whole and `{ approval }` is returned instead. With an `idempotencyKey` bound to an approval of the
   * vault, answers that approval's state (approved: its Sign result). A sign no rule holds is made anew
   * each time, key or not: every signature is single-use (a fresh nonce), so a second one is no duplicate
   * effect, and storing each answer would keep signatures in a second place for nothing.
   */
  async execute(command: SignCallCommand): Promise<SignOutcome> {
    const key = command.idempotencyKey;
    if (key !== undefined && this.approvals !== undefined) {
      const known = await this.repeated(command, key, this.approvals);
      if (known !== null) return known;
    }
    const p = await this.prepare(command);
    // One check on the policy already read: a vault without approval rules pays nothing more.
    const held = p.policy?.approvals === undefined ? null : approvalRuleFor(p.policy.approvals, p);
    if (held !== null) return this.hold(command, p, held);
    return this.issue(p, command.args, this.recordSigned);
  }

  /** How a sign no rule holds is recorded (made once: the sign path allocates no closure for it). */
  private readonly recordSigned = (entry: SignatureRecord, issued: AuditEvent): Promise<void> => this.signatureLog.record(entry, issued);

  /**
   * Makes the signature of an approved request (its quorum reached, the release claimed with `token`): the
   * stored request is signed as it was asked, with everything the request does not fix read now, not when
   * it was asked: a fresh nonce, uniq and signer from the contract (on RPC chains), the policy (except the
   * approval rules), the wallet and the sign limits. The signature, its audit records and the approval's
   * result are written in one transaction, only while the claim holds; CONFLICT when it no longer did.
   */
  async release(approval: Approval, token: string, actor: string): Promise<SignResult> {
    const approvals = this.approvals;
    if (approvals === undefined) throw new DomainError(ErrorCode.INTERNAL, 'approvals: this persistence holds none');
    const fields = JSON.parse(approval.request) as Omit<SignCallCommand, 'principal'>;
    // The requester's key signs, as it asked; its roles are not checked again (Sign checked them).
    const principal: Principal = { apiKeyId: approval.requester, vaultId: approval.vaultId, roles: [] };
    // Read from the contract now (no value kept from an earlier read): what the wait cannot make stale.
    const p = await this.prepare({ ...fields, principal }, true);
    return this.issue(
      p,
      fields.args,
      async (entry, issued, result) => {
        const decided: AuditEvent = {
          action: 'approval.decided',
          at: entry.created,
          actor,
          vaultId: approval.vaultId,
          subject: approval.id,
          details: { approval: approval.id, status: 'approved', submissionHash: entry.submissionHash },
        };
        const done = await approvals.release(approval.vaultId, approval.id, token, entry.created, entry, JSON.stringify(result), [issued, decided]);
        if (!done) throw new DomainError(ErrorCode.CONFLICT, `approval ${approval.id}: its release was taken over, it expired, or a key whose vote made the quorum was revoked meanwhile; nothing was signed`);
      },
      approval.id,
    );
  }

  /** Every check of a sign, in order, up to the wallet that signs; what issue() and hold() need. */
  private async prepare(command: SignCallCommand, fresh = false): Promise<Prepared> {
    const { principal } = command;
    const vaultId = principal.vaultId;
    const check = signFieldChecks;
    const chain = check.chain(command.chain, this.chains);
    const contract = check.contract(command.contract);
    const sender = check.sender(command.sender) as Hex;
    check.abi(command.abi);
    check.args(command.args);
    const requestedUniq = check.uniq(command.uniq);
    const requestedSigner = check.signer(command.signer);

    const { fn, key: abiKey, cached } = this.functions.parse(command.abi);
    const args = coerceArguments(command.args, fn.argParams);
    const message = encodeMessage(fn, args);

    // Before any chain read or key store: a request outside the policy costs nothing more. Where the
    // uniq comes from the request it is checked here; where it is read from the contract, after.
    const fromRequest = this.uniqFromRequest(chain);
    if (fromRequest !== null && requestedUniq === undefined) throw invalidArgument(`uniq: is required ${fromRequest}`);
    const policy = await this.policies.find(vaultId);
    const facts: SignRequestFacts = { chain, contract, selector: fn.selector, sender, uniq: fromRequest === null ? null : requestedUniq! };
    // Rules on the arguments judge the values as parsed against the ABI, which is what gets signed.
    await this.enforce(principal, signPolicyViolation(policy, facts) ?? argumentRuleViolation(policy?.rules, fn, args), facts);

    const { uniq, signer } = await this.signableValues(chain, contract, requestedUniq, requestedSigner, fresh);
    if (fromRequest === null) await this.enforce(principal, pinnedUniqViolation(policy, contract, uniq), { ...facts, uniq });
    const now = this.clock.now();
    const wallet = await this.signers.require(vaultId, signer, now).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === ErrorCode.WALLET_NOT_FOUND) {
        throw new DomainError(ErrorCode.WALLET_NOT_FOUND, `signer ${signer} is not a wallet of this vault`);
      }
      throw error;
    });
    return { principal, vaultId, chain, contract, sender, fn, abiKey, cached, args, message, policy, facts, uniq, wallet, now };
  }

  /** Counts the sign under the policy's limits, signs, and hands the record to `record` before answering. */
  private async issue(
    p: Prepared,
    suppliedArgs: readonly unknown[],
    record: (entry: SignatureRecord, issued: AuditEvent, result: SignResult) => Promise<void>,
    approvalId?: string,
  ): Promise<SignResult> {
    const { principal, vaultId, chain, contract, sender, fn, wallet, uniq, now, policy } = p;
    // Last of the checks, once the wallet is known and every other rule passed: only a sign that would
    // otherwise go ahead is counted. A policy without limits costs no round trip here.
    if (policy?.limits !== undefined) await this.countSign(principal, policy.limits, { ...p.facts, uniq }, wallet.address, now);

    const nonce = toHex(this.random(32));
    const digest = signableDigest({ uniq, nonce, sender, message: p.message });
    const raw = await this.keyStores.get(wallet.keyStore).sign(wallet.keyRef, digest);
    const signature: SignatureStruct = { nonce, r: toHex(raw.r), s: toHex(raw.s), v: raw.v };
    const hash = submissionHash(signature);
    // The signature record and its signature.issued audit record in one write (see SignatureLog.record).
    const issued: AuditEvent = {
      action: 'signature.issued',
      at: now,
      actor: actorOf(principal),
      vaultId,
      subject: hash,
      // uniq says what the signature is valid for: any contract with this uniq, whatever contract was named.
      // Keys in sorted order: the canonical JSON the audit chain hashes is then the object as it is.
      details:
        approvalId === undefined
          ? { chain, contract, selector: fn.selector, sender, uniq, wallet: wallet.address }
          : { approval: approvalId, chain, contract, selector: fn.selector, sender, uniq, wallet: wallet.address },
    };
    const result: SignResult = { submissionHash: hash, args: argsWithSignature(fn, suppliedArgs as unknown[], signature) };
    await record(
      {
        submissionHash: hash,
        vaultId,
        walletId: wallet.id,
        walletAddress: wallet.address,
        chain,
        contract,
        sender,
        selector: fn.selector,
        created: now,
        transactionHash: null,
        submitted: null,
      },
      issued,
      result,
    );
    if (!p.cached) this.functions.remember(p.abiKey, fn);
    return result;
  }

  /** Stores the request whole as a pending approval (with approval.requested) and answers it. */
  private async hold(command: SignCallCommand, p: Prepared, rule: ApprovalRule): Promise<SignOutcome> {
    const approvals = this.approvals;
    if (approvals === undefined || this.ids === undefined) {
      // Nothing to hold it in (a persistence of an earlier release): refusing is the only way to keep the rule.
      await this.enforce(p.principal, "policy: this vault's approval rules need a persistence that holds approvals, and this one does not", p.facts);
    }
    const request = canonicalJson(requestFields(command));
    const expires = new Date(p.now.getTime() + (rule.expiresInMs ?? DEFAULT_APPROVAL_EXPIRY_MS));
    const approval: NewApproval = {
      id: this.ids!.next(),
      vaultId: p.vaultId,
      ruleId: rule.id,
      required: rule.required,
      group: rule.group ?? null,
      requester: p.principal.apiKeyId,
      request,
      requestHash: sha256(request),
      idempotencyKey: command.idempotencyKey ?? null,
      chain: p.chain,
      contract: p.contract,
      sender: p.sender,
      selector: p.fn.selector,
      functionSignature: p.fn.signature,
      created: p.now,
      expires,
    };
    const requested: AuditEvent = {
      action: 'approval.requested',
      at: p.now,
      actor: actorOf(p.principal),
      vaultId: p.vaultId,
      subject: approval.id,
      details: {
        approval: approval.id,
        chain: p.chain,
        contract: p.contract,
        expires: expires.toISOString(),
        function: p.fn.signature,
        group: approval.group,
        required: rule.required,
        rule: rule.id,
        selector: p.fn.selector,
        sender: p.sender,
      },
    };
    const created = await approvals!.create(approval, requested);
    if (created !== null) return { approval: created };
    // The key was bound by a request that raced this one: answer as a repeat of it.
    const known = await this.repeated(command, command.idempotencyKey!, approvals!);
    if (known === null) throw new DomainError(ErrorCode.CONFLICT, 'Idempotency-Key: in use by a request being stored; retry');
    return known;
  }

  /** A repeat of a held request (same Idempotency-Key): its approval's state, or null when the key is unknown. */
  private async repeated(command: SignCallCommand, key: string, approvals: ApprovalStore): Promise<SignOutcome | null> {
    const approval = await approvals.findByIdempotencyKey(command.principal.vaultId, key);
    if (approval === null) return null;
    if (approval.requestHash !== sha256(canonicalJson(requestFields(command)))) {
      throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, `Idempotency-Key: already used for another sign request of this vault (approval ${approval.id}); use a new key for a new request`);
    }
    return approvalOutcome(approval, this.clock.now());
  }

  /**
   * Counts the sign under each limit that applies to it, or refuses it (429 with Retry-After, audited as
   * sign.denied) when one is full. Counted before the key store signs: a sign that fails after this
   * (the key store, the signature log) still counts, as an attempt the limit was there to bound.
   */
  private async countSign(principal: Principal, limits: readonly SignLimit[], facts: SignRequestFacts, wallet: string, now: Date): Promise<void> {
    const demands = signCountDemands(limits, { vaultId: principal.vaultId, wallet, contract: facts.contract, selector: facts.selector });
    if (demands.length === 0) return;
    if (this.signCounter === undefined) {
      // Nothing to count with (a persistence of an earlier release): refusing is the only way to hold the limit.
      return this.enforce(principal, "policy: this vault's sign limits need a persistence that counts signs, and this one does not", facts);
    }
    const decision = await this.signCounter.take(demands, now);
    if (decision.allowed) return;
    const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    const label = demands.find((d) => d.key === decision.refusedBy)?.label ?? 'a sign limit of this vault';
    const message = `limit: ${label} reached; retry after ${retryAfterSeconds} s`;
    await this.auditDenied(principal, message, facts);
    throw new DomainError(ErrorCode.SIGN_LIMIT_REACHED, message, { retryAfterSeconds });
  }

  /** A refused attempt is what an operator most wants on record; it is written before the 403. */
  private async enforce(principal: Principal, violation: string | null, facts: SignRequestFacts): Promise<void> {
    if (violation === null) return;
    await this.auditDenied(principal, violation, facts);
    throw new DomainError(ErrorCode.POLICY_DENIED, violation);
  }

  private async auditDenied(principal: Principal, violation: string, facts: SignRequestFacts): Promise<void> {
    await audit(this.auditLog, 'sign.denied', this.clock.now(), actorOf(principal), principal.vaultId, null, {
      rule: violation,
      chain: facts.chain,
      contract: facts.contract,
      uniq: facts.uniq,
      selector: facts.selector,
      sender: facts.sender,
    });
  }

  /** Why uniq and signer come from the request (`local`, or a chain without an RPC), or null when read from the contract. */
  private uniqFromRequest(chain: string): string | null {
    if (chain === 'local') return 'for chain local';
    return this.chainReader.hasRpc(chain) ? null : `for chain ${chain} (no RPC configured)`;
  }

  /** From the request on `local` and chains without an RPC; from the contract itself otherwise. */
  private async signableValues(
    chain: string,
    contract: string,
    uniq: Hex | undefined,
    signer: string | undefined,
    fresh: boolean,
  ): Promise<{ uniq: Hex; signer: string }> {
    const why = this.uniqFromRequest(chain);
    if (why !== null) {
      if (uniq === undefined) throw invalidArgument(`uniq: is required ${why}`);
      if (signer === undefined) throw invalidArgument(`signer: is required ${why}`);
      return { uniq, signer };
    }
    const onChain = await (fresh ? this.chainReader.readSignable(chain, contract, { fresh }) : this.chainReader.readSignable(chain, contract));
    if (uniq !== undefined && uniq.toLowerCase() !== onChain.uniq.toLowerCase()) {
      throw invalidArgument(`uniq: ${uniq} does not match the contract's uniq() on ${chain} (${onChain.uniq})`);
    }
    if (signer !== undefined && signer !== onChain.signer) {
      throw invalidArgument(`signer: ${signer} does not match the contract's signer() on ${chain} (${onChain.signer})`);
    }
    return { uniq: onChain.uniq.toLowerCase() as Hex, signer: onChain.signer };
  }
}

function optionalBytes32(raw: unknown, field: string): Hex | undefined {
  if (raw === undefined) return undefined;
  // Clients mostly send lower case already: that passes as is, without a lowered copy.
  if (typeof raw === 'string' && LOWER_BYTES32.test(raw)) return raw as Hex;
  if (typeof raw !== 'string' || !BYTES32.test(raw)) throw invalidArgument(`${field}: must be 0x-prefixed 32-byte hex (bytes32)`);
  return raw.toLowerCase() as Hex;
}
