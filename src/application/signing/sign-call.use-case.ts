import { parseAddress } from '../../domain/address.js';
import { heldOfKind, type Approval } from '../../domain/approval.js';
import { CALL_KIND } from '../../domain/signing/kinds/call/call.kind.js';
import type { ParsedFunction } from '../../domain/signing/abi-function.js';
import type { AbiValue } from '../../domain/signing/argument-coercion.js';
import type { Wallet } from '../../domain/wallet.js';
import type { ApprovalStore } from '../../ports/approval-store.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { FreezeFence } from '../../ports/freeze-fence.js';
import type { SignatureRecord } from '../../ports/signature-log.port.js';
import { DomainError, ErrorCode, invalidArgument } from '../../domain/errors.js';
import { coerceArguments } from '../../domain/signing/argument-coercion.js';
import {
  argsWithSignature,
  encodeMessage,
  encodeSignedCall,
  signableDigest,
  submissionHash,
  toHex,
  type Hex,
  type SignatureStruct,
} from '../../domain/signing/signable-digest.js';
import type { PolicyDocument } from '../../domain/policy/policy-document.js';
import { decidesByWallet, evaluatePolicy, type PolicyDecision } from '../../domain/policy/policy-evaluation.js';
import { NO_FACTS, type ChainDirectory, type SignIntent } from '../../domain/policy/sign-intent.js';
import { pinnedUniqViolation, unpinnedViolation } from '../../domain/sign-policy.js';
import { CHAINS } from '../../domain/chains.js';
import type { AuditEvent } from '../../ports/audit-log.port.js';
import type { ChainReader } from '../../ports/chain-reader.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { SignatureLog } from '../../ports/signature-log.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { AbiFunctionCache } from './abi-function-cache.js';
import type { ReleaseQuorum } from '../approvals/held-quorum.js';
import { HeldRequests, type ApprovalRequested } from '../approvals/held-requests.js';
import { actorOf } from '../audit/audit-actor.js';
import type { TransactionSimulator } from './transaction-simulation.js';
import type { Principal } from '../access/authenticate.use-case.js';
import type { DenialRecord, SignPolicyGate } from './sign-policy-gate.js';
import type { WalletBindings } from '../wallets/wallet-binding.js';
import { SignerCache } from '../wallets/wallet-lookup.js';

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const LOWER_BYTES32 = /^0x[0-9a-f]{64}$/;

export interface SignResult {
  readonly submissionHash: string;
  readonly args: unknown[];
}

/** A sign an approval rule holds: nothing is signed until its quorum approves (`status` pending). */
export type { ApprovalRequested };

/** What Sign answers: the signature, or the approval that holds it (`'approval' in outcome`). */
export type SignOutcome = SignResult | ApprovalRequested;

/** The fields as checked (undefined ones left out): what an approval stores and approves. */
const requestFields = (f: SignFields): Omit<SignCallCommand, 'principal' | 'idempotencyKey'> => ({
  chain: f.chain,
  contract: f.contract,
  sender: f.sender,
  ...(f.uniq === undefined ? {} : { uniq: f.uniq }),
  ...(f.signer === undefined ? {} : { signer: f.signer }),
  abi: f.abi,
  args: f.args,
  ...(f.simulate ? { simulate: true } : {}),
});

/**
 * What a preparation is for: a sign (a refusal is recorded and thrown), the release of a held request (the
 * same, with the contract read afresh) or a dry run (a refusal answered; nothing recorded or counted).
 */
type SignMode = 'sign' | 'release' | 'dry-run';

/** Step 1, read: the request as checked, its call parsed against its ABI. */
interface ReadSignBase {
  readonly principal: Principal;
  readonly fields: SignFields;
  readonly fn: ParsedFunction;
  readonly abiKey: string;
  readonly cached: boolean;
  /** The arguments as parsed against the ABI: what gets signed, and what rules on the arguments judge. */
  readonly call: { readonly fn: ParsedFunction; readonly args: readonly AbiValue[] };
  readonly message: Hex;
}

/**
 * Where uniq and signer come from: the request (`local`, a chain without an RPC: `fromRequest` says which,
 * and the request's uniq is there, required), or the contract (read in step 4: no uniq known before).
 */
type UniqSource = { readonly fromRequest: string; readonly knownUniq: Hex } | { readonly fromRequest: null; readonly knownUniq: null };

type ReadSign = ReadSignBase & UniqSource;

/** Step 4, the chain's values: the uniq the digest binds, the wallet that signs, and when. */
interface Signable {
  readonly uniq: Hex;
  readonly wallet: Wallet;
  readonly now: Date;
}

/** What the preparation found: the request read, the policy, the chain's values and the one decision. */
interface Prepared extends Signable {
  readonly ask: ReadSign;
  /** The one policy's decision (allow or hold: a deny was thrown), the document it was made with and the fence of its record. */
  readonly decision: PolicyDecision;
  readonly document: PolicyDocument | null;
  readonly fence: FreezeFence | null;
  readonly intent: SignIntent;
  readonly denial: DenialRecord;
}

/** A dry run refused before the chain was read (a sign's refusal is thrown instead). */
interface RefusedAhead {
  readonly refused: PolicyDecision;
}

/** A sign's and a release's refusals are thrown by the gate, so only a dry run is ever answered one. */
function mustSign(p: Prepared | RefusedAhead): Prepared {
  if ('refused' in p) throw new DomainError(ErrorCode.INTERNAL, 'a refused sign reached the signer');
  return p;
}

/**
 * Writes a signature's records before it is answered: its signature row, its signature.issued record and,
 * for a release, the approval's result, all under `fence` (FreezeFence: refused if the vault was frozen since).
 */
export type RecordSigned = (entry: SignatureRecord, issued: AuditEvent, result: SignResult, fence: FreezeFence | null) => Promise<void>;

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
   * true: the call is run on its chain (eth_call from `sender` at the pending block) with the signature in
   * place before the signature is answered; a revert is SIMULATION_REVERTED and the signature is never
   * handed out. The chain must have an RPC.
   */
  readonly simulate?: boolean;
  /**
   * Binds a sign an approval rule holds to this key (per vault): a repeat with the same key and fields
   * answers the approval's state instead of asking again (see execute). 1 to 255 characters.
   */
  readonly idempotencyKey?: string;
}

/**
 * Sign's body as sent, with who asks: the HTTP route's command. The body is checked here (readSignFields),
 * never before, so a library caller and the route get the same refusals in the same words.
 */
export interface SignBodyCommand {
  readonly principal: Principal;
  readonly body: unknown;
  readonly idempotencyKey?: string;
}

/** Sign's fields, in the order they are checked: any other is refused (a client must never believe an ignored field binds it). */
export const SIGN_FIELDS = ['chain', 'contract', 'sender', 'uniq', 'signer', 'abi', 'args', 'simulate'] as const;
const SIGN_FIELD_SET: ReadonlySet<string> = new Set(SIGN_FIELDS);
const NOT_A_FIELD = `is not a field of Sign (${SIGN_FIELDS.join(', ')}); nothing in it would bind the signature`;

/** Sign's fields as checked, each parsed once: addresses EIP-55, uniq lower case, simulate a boolean. */
export interface SignFields {
  readonly chain: string;
  readonly contract: string;
  readonly sender: Hex;
  readonly uniq: Hex | undefined;
  readonly signer: string | undefined;
  readonly abi: SignAbiItem;
  /** Present; whether it is an array, and what each argument must be, the ABI decides (coerceArguments). */
  readonly args: readonly unknown[];
  readonly simulate: boolean;
}

/**
 * The one check of Sign's fields (HTTP body, library command, stored approval, dry run alike): an object
 * of Sign's fields only, each checked in this order, so the first refusal is always the same one. The
 * values are handed on parsed; nothing after this parses them again.
 */
export function readSignFields(body: unknown, chains: readonly string[]): SignFields {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidArgument('body: must be a JSON object');
  const b = body as Record<string, unknown>;
  for (const key in b) if (!SIGN_FIELD_SET.has(key)) throw invalidArgument(`${key}: ${NOT_A_FIELD}`);
  const chain = b.chain;
  if (chain === undefined) throw invalidArgument(`chain: is required (one of ${chains.join(', ')})`);
  if (typeof chain !== 'string' || !chains.includes(chain)) throw invalidArgument(`chain: must be one of ${chains.join(', ')}`);
  const contract = parseAddress(b.contract, 'contract');
  const sender = parseAddress(b.sender, 'sender') as Hex;
  const abi = required(b.abi, 'abi') as SignAbiItem;
  const args = required(b.args, 'args') as readonly unknown[];
  const uniq = optionalBytes32(b.uniq, 'uniq');
  const signer = b.signer === undefined ? undefined : parseAddress(b.signer, 'signer');
  if (b.simulate !== undefined && typeof b.simulate !== 'boolean') throw invalidArgument('simulate: must be true or false');
  return { chain, contract, sender, uniq, signer, abi, args, simulate: b.simulate === true };
}

/** A library command's Sign fields: the command less who asks and its key (a rest spread only where called by a library). */
function fieldsOf(command: SignCallCommand): unknown {
  const { principal: _principal, idempotencyKey: _key, ...fields } = command;
  return fields;
}

function required(raw: unknown, field: string): unknown {
  if (raw === undefined) throw invalidArgument(`${field}: is required`);
  return raw;
}

/** What SignCall is built from, by name. */
export interface SignCallDeps {
  readonly repository: WalletStore;
  /** The wallets' keys, reached only through their bindings' check. */
  readonly bindings: WalletBindings;
  readonly chainReader: ChainReader;
  readonly signatureLog: SignatureLog;
  readonly clock: Clock;
  /** Bytes of each signature's fresh nonce. */
  readonly random: (n: number) => Uint8Array;
  /** The one policy decision every route's signature passes (and its limits). */
  readonly gate: SignPolicyGate;
  /** Chain names a request may give: the interface's and any the operator added. */
  readonly chains?: readonly string[];
  /** The chain ids of those names, for policy rules that name a chain by id. */
  readonly chainIds?: ChainDirectory;
  readonly abiCacheBytes?: number;
  /** Runs a call asking `simulate: true` on its chain before the signature is answered. */
  readonly simulator?: TransactionSimulator;
  /** Holds signs for a quorum; without it, a sign a hold rule matches is refused. */
  readonly approvals?: ApprovalStore;
  /** Ids of new approvals. */
  readonly ids?: IdGenerator;
}

/**
 * Signs a contract call for a signable contract: the vault wallet named by the contract's signer() signs
 * keccak256(abi.encode(uniq, nonce, sender, abi.encode(selector, ...args))).
 */
export class SignCall {
  /** Parsed ABI items, filled only by signs that succeeded. */
  readonly functions: AbiFunctionCache;
  private readonly signers: SignerCache;

  /** Chain names a request may give: the interface's and any the operator added. */
  readonly chains: readonly string[];
  private readonly chainIds: ChainDirectory;
  /** The approvals of signs a hold rule matches (shared with the standard requests). */
  private readonly held: HeldRequests;

  constructor(private readonly deps: SignCallDeps) {
    this.signers = new SignerCache(deps.repository);
    this.functions = new AbiFunctionCache(deps.abiCacheBytes);
    this.chains = deps.chains ?? CHAINS;
    this.chainIds = deps.chainIds ?? { idOf: () => null, nameOf: () => null };
    this.held = new HeldRequests(deps, 'sign request');
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
    return this.executeBody({ principal: command.principal, body: fieldsOf(command), ...(command.idempotencyKey === undefined ? {} : { idempotencyKey: command.idempotencyKey }) });
  }

  /** execute() with Sign's body as sent (the HTTP route's command): checked here, once. */
  async executeBody(command: SignBodyCommand): Promise<SignOutcome> {
    const { principal, idempotencyKey: key } = command;
    const fields = readSignFields(command.body, this.chains);
    if (key !== undefined) {
      const known = await this.held.repeated<SignResult>(principal.vaultId, key, requestFields(fields));
      if (known !== null) return known;
    }
    const p = mustSign(await this.prepare('sign', principal, fields));
    if (p.decision.decision === 'hold') return this.hold(p, key);
    // Last of the checks, once every rule passed: only a sign that would otherwise go ahead is counted.
    const escalated = await this.deps.gate.count(principal, p.document, p.intent, p.denial);
    if (escalated !== null) return this.hold({ ...p, decision: escalated }, key);
    return this.issue(p, this.recordSigned);
  }

  /** How a sign no rule holds is recorded (made once: the sign path allocates no closure for it). */
  private readonly recordSigned: RecordSigned = (entry, issued, _result, fence) => this.deps.signatureLog.record(entry, issued, fence);

  /**
   * Signs an approved request as it was asked (ReleaseCall: its quorum reached, the release claimed), with
   * everything the request does not fix read now, not when it was asked: a fresh nonce, uniq and signer
   * from the contract (on RPC chains), the policy, the wallet and the sign limits. A hold the policy decides
   * now must be met by `quorum` (its rule's quorum and group, QuorumShort otherwise). `record` writes the
   * signature and its records before it is answered.
   */
  async signApproved(approval: Approval, quorum: Pick<ReleaseQuorum, 'require' | 'requireEscalation'>, record: RecordSigned): Promise<SignResult> {
    const fields = readSignFields(heldOfKind(CALL_KIND, approval), this.chains);
    // The requester's key signs, as it asked; its roles are not checked again (Sign checked them).
    const principal = this.held.releasePrincipal(approval);
    // Read from the contract now (no value kept from an earlier read): what the wait cannot make stale.
    const p = mustSign(await this.prepare('release', principal, fields));
    // The votes against what this decision asks (a hold's quorum and group), not what the approval's row says.
    quorum.require(p.decision);
    // A limit its onExceed lets approvers pass: counted past its maximum when these approvers meet its hold.
    await this.deps.gate.count(principal, p.document, p.intent, p.denial, quorum);
    return this.issue(p, record, approval.id);
  }

  /**
   * What the one policy would decide for this Sign (the dry run): every check and read Sign makes up to
   * the decision, the uniq pins included; nothing recorded, counted or signed.
   */
  async evaluate(principal: Principal, body: unknown): Promise<PolicyDecision> {
    const p = await this.prepare('dry-run', principal, readSignFields(body, this.chains));
    return 'refused' in p ? p.refused : p.decision;
  }

  /**
   * Read, resolve the chain's values, decide once, in that order; `evaluate`, `executeBody` and
   * `signApproved` then answer, sign or hold. The decision is made before the chain is read when it cannot
   * depend on which wallet signs: a request outside the policy then costs nothing more (an RPC's answer
   * could not have changed it).
   */
  private async prepare(mode: SignMode, principal: Principal, fields: SignFields): Promise<Prepared | RefusedAhead> {
    const ask = this.read(principal, fields);
    const { document, fence } = await this.deps.gate.policy(principal.vaultId);
    const ahead = decidesByWallet(document) ? null : await this.decide(mode, ask, document, this.intentOf(ask, ''), this.denialOf(ask, ask.knownUniq));
    if (ahead?.decision === 'deny') return { refused: ahead };
    const signable = await this.resolve(mode, ask);
    const denial = this.denialOf(ask, signable.uniq);
    const intent = this.intentOf(ask, signable.wallet.address);
    const decided = ahead ?? (await this.decide(mode, ask, document, intent, denial));
    // The uniq the digest binds against its contract's pin, once the decision and the uniq are both known: a pin always binds.
    const pinViolation = decided.decision === 'deny' ? null : pinnedUniqViolation(document, ask.fields.contract, signable.uniq);
    const decision = pinViolation === null ? decided : await this.refuse(mode, principal, pinViolation, denial);
    return { ask, uniq: signable.uniq, wallet: signable.wallet, now: signable.now, decision, document, fence, intent, denial };
  }

  /** Step 1: the simulation's chain, the call against its ABI, and where uniq and signer come from (uniq required from the request there). */
  private read(principal: Principal, fields: SignFields): ReadSign {
    const { chain } = fields;
    if (fields.simulate && this.deps.simulator?.chainOf({ chain, chainId: null }) == null) {
      throw invalidArgument(`simulate: chain ${chain} has no RPC configured to run the call on`);
    }
    const { fn, key: abiKey, cached } = this.functions.parse(fields.abi);
    const args = coerceArguments(fields.args, fn.argParams);
    const call = { fn, args };
    const message = encodeMessage(fn, args);
    const fromRequest = this.uniqFromRequest(chain);
    if (fromRequest === null) return { principal, fields, fn, abiKey, cached, call, message, fromRequest, knownUniq: null };
    // Where the uniq comes from the request, it must be there before anything else is asked.
    if (fields.uniq === undefined) throw invalidArgument(`uniq: is required ${fromRequest}`);
    return { principal, fields, fn, abiKey, cached, call, message, fromRequest, knownUniq: fields.uniq };
  }

  /** The request as the policy judges it, signed by `wallet` ('' while the chain is not read yet). */
  private intentOf(ask: ReadSign, wallet: string): SignIntent {
    const { chain, contract, sender } = ask.fields;
    return { ...NO_FACTS, kind: 'call', chain, chainId: this.chainIds.idOf(chain), wallet, contract, selector: ask.fn.selector, sender, call: ask.call };
  }

  /** How a refusal of this request is put on record: with the uniq known when it is refused. */
  private denialOf(ask: ReadSign, uniq: string | null): DenialRecord {
    const { chain, contract, sender } = ask.fields;
    return { subject: null, details: { chain, contract, uniq, selector: ask.fn.selector, sender } };
  }

  /**
   * Steps 2 and 3: the one policy's decision, then (a decision its contract's rules let through) the
   * contract's pin: the digest binds the uniq, not the contract, so a call let through only by rules naming
   * its contract needs the contract's uniq pinned (or, on an RPC chain, the RPC trusted for it).
   */
  private async decide(mode: SignMode, ask: ReadSign, document: PolicyDocument | null, intent: SignIntent, record: DenialRecord): Promise<PolicyDecision> {
    const decision = mode === 'dry-run' ? evaluatePolicy(document, intent) : await this.deps.gate.decideWith(ask.principal, document, intent, record);
    if (decision.decision === 'deny' || !decision.contractBound) return decision;
    const { chain, contract } = ask.fields;
    const violation = unpinnedViolation(document ?? {}, { chain, contract, uniq: ask.knownUniq });
    return violation === null ? decision : this.refuse(mode, ask.principal, violation, record);
  }

  /** A refusal: recorded and thrown (SignPolicyGate.refuse), or answered to a dry run. */
  private async refuse(mode: SignMode, principal: Principal, message: string, record: DenialRecord): Promise<PolicyDecision> {
    if (mode !== 'dry-run') await this.deps.gate.refuse(principal, message, record);
    return { decision: 'deny', rule: null, message, contractBound: false };
  }

  /** Why uniq and signer come from the request (`local`, or a chain without an RPC), or null when read from the contract. */
  private uniqFromRequest(chain: string): string | null {
    if (chain === 'local') return 'for chain local';
    return this.deps.chainReader.hasRpc(chain) ? null : `for chain ${chain} (no RPC configured)`;
  }

  /**
   * Step 4: uniq and signer from the request on `local` and chains without an RPC, from the contract
   * itself otherwise (afresh for a release), and the signer's wallet.
   */
  private async resolve(mode: SignMode, ask: ReadSign): Promise<Signable> {
    const { chain, contract, uniq: requestedUniq, signer: requestedSigner } = ask.fields;
    let uniq: Hex;
    let signer: string;
    if (ask.fromRequest !== null) {
      if (requestedSigner === undefined) throw invalidArgument(`signer: is required ${ask.fromRequest}`);
      uniq = ask.knownUniq;
      signer = requestedSigner;
    } else {
      const reader = this.deps.chainReader;
      const onChain = await (mode === 'release' ? reader.readSignable(chain, contract, { fresh: true }) : reader.readSignable(chain, contract));
      if (requestedUniq !== undefined && requestedUniq.toLowerCase() !== onChain.uniq.toLowerCase()) {
        throw invalidArgument(`uniq: ${requestedUniq} does not match the contract's uniq() on ${chain} (${onChain.uniq})`);
      }
      if (requestedSigner !== undefined && requestedSigner !== onChain.signer) {
        throw invalidArgument(`signer: ${requestedSigner} does not match the contract's signer() on ${chain} (${onChain.signer})`);
      }
      uniq = onChain.uniq.toLowerCase() as Hex;
      signer = onChain.signer;
    }
    const now = this.deps.clock.now();
    const wallet = await this.signers.requireParsed(ask.principal.vaultId, signer, now).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === ErrorCode.WALLET_NOT_FOUND) {
        throw new DomainError(ErrorCode.WALLET_NOT_FOUND, `signer ${signer} is not a wallet of this vault`);
      }
      throw error;
    });
    return { uniq, wallet, now };
  }

  /** Signs (its limits counted by the caller), and hands the record to `record` before answering. */
  private async issue(p: Prepared, record: RecordSigned, approvalId?: string): Promise<SignResult> {
    const { ask, wallet, uniq, now } = p;
    const { principal, fn } = ask;
    const { chain, contract, sender } = ask.fields;
    const vaultId = principal.vaultId;

    const nonce = toHex(this.deps.random(32));
    const digest = signableDigest({ uniq, nonce, sender, message: ask.message });
    const raw = await this.deps.bindings.sign(wallet, digest);
    const signature: SignatureStruct = { nonce, r: toHex(raw.r), s: toHex(raw.s), v: raw.v };
    if (ask.fields.simulate) {
      // With its signature in place, from its sender: what the contract will do with it. A revert answers
      // 422 and this signature is never handed out nor recorded (its nonce is fresh, so it is never made again).
      const data = encodeSignedCall(fn, ask.call.args, signature);
      await this.deps.simulator!.simulate({ chain, chainId: null, from: sender, to: contract, data, value: 0n }, undefined, 'call');
    }
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
    const result: SignResult = { submissionHash: hash, args: argsWithSignature(fn, ask.fields.args as unknown[], signature) };
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
      p.fence,
    );
    if (!ask.cached) this.functions.remember(ask.abiKey, fn);
    return result;
  }

  /** Stores the request whole as a pending approval (HeldRequests.hold, with approval.requested) and answers it. */
  private hold(p: Prepared, key: string | undefined): Promise<SignOutcome> {
    const { fields, fn, principal } = p.ask;
    const held = {
      body: requestFields(fields),
      chain: fields.chain,
      contract: fields.contract,
      sender: fields.sender,
      selector: fn.selector,
      description: fn.signature,
      details: { sender: fields.sender },
      wallet: p.wallet,
    };
    return this.held.hold<SignResult>(principal, p.decision, held, key, p.denial, p.now);
  }
}

function optionalBytes32(raw: unknown, field: string): Hex | undefined {
  if (raw === undefined) return undefined;
  // Clients mostly send lower case already: that passes as is, without a lowered copy.
  if (typeof raw === 'string' && LOWER_BYTES32.test(raw)) return raw as Hex;
  if (typeof raw !== 'string' || !BYTES32.test(raw)) throw invalidArgument(`${field}: must be 0x-prefixed 32-byte hex (bytes32)`);
  return raw.toLowerCase() as Hex;
}
