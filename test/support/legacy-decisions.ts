import { checkArgumentRule, describeArgumentRule, type ArgumentRule } from '../../src/domain/argument-rules.js';
import type { ApprovalRule } from '../../src/domain/approval-rules.js';
import { describeSignLimit, type SignCountDemand, type SignLimit } from '../../src/domain/sign-limits.js';
import { pinnedUniqViolation, unpinnedViolation, type SignPolicy, type SignRequestFacts } from '../../src/domain/sign-policy.js';
import type { ParsedFunction } from '../../src/domain/signing/abi-function.js';
import type { AbiValue } from '../../src/domain/signing/argument-coercion.js';
import { DEFAULT_MAX_FEE_WEI, type StandardSignPolicy } from '../../src/domain/standard-sign-policy.js';

/**
 * How the releases before the one policy document decided a request: Sign's allow-lists and pinned uniq,
 * the argument rules, the approval rules, the standard-signing switches and the sign limits, each route
 * with its own. No route decides with these any more (the one evaluator does, over the document stored
 * policies migrate to); they are the oracle the migration corpus holds the evaluator against
 * (test/unit/policy-migration-corpus.test.ts), and their own tests say what they decided.
 */

/** What a transaction does, as the policy reads it (the StandardPayloads port's facts). */
export interface TransactionRequestFacts {
  readonly chainId: bigint;
  /** EIP-55, or null for a contract creation. */
  readonly to: string | null;
  readonly selector: string | null;
  /** Data that is not empty but shorter than a selector. */
  readonly shortData: boolean;
  readonly value: bigint;
  /** The most the transaction can pay in fees (gas × maxFeePerGas or gasPrice), in wei. */
  readonly fee: bigint;
}

/** The domain facts of typed data (the StandardPayloads port's). */
export interface TypedDataRequestFacts {
  readonly chainId: bigint | null;
  readonly verifyingContract: string | null;
  readonly name: string | null;
}

export function messageViolation(policy: StandardSignPolicy | null): string | null {
  return policy?.messages === true ? null : "policy: this vault's policy does not allow personal messages (--messages)";
}

/** The first rule a transaction breaks, in a fixed order (chain id, creation or recipient, selector, value, fee), or null. */
export function transactionViolation(policy: StandardSignPolicy | null, facts: TransactionRequestFacts): string | null {
  const rules = policy?.transactions;
  if (rules === undefined) return "policy: this vault's policy allows no transactions (--tx-chain-ids)";
  const chainId = facts.chainId.toString();
  if (!rules.chainIds.includes(chainId)) return `policy: chain id ${chainId} is not in this vault's allowed transaction chain ids`;
  if (facts.to === null) {
    if (rules.contractCreation !== true) return "policy: this vault's policy does not allow contract creation (--tx-contract-creation)";
  } else {
    if (!rules.to?.includes(facts.to)) return `policy: recipient ${facts.to} is not in this vault's allowed transaction recipients`;
    if (facts.shortData) return 'policy: transaction data shorter than a function selector is not allowed';
    if (facts.selector !== null && !rules.selectors?.includes(facts.selector)) {
      return `policy: function selector ${facts.selector} is not in this vault's allowed transaction selectors`;
    }
  }
  const cap = BigInt(rules.maxValue ?? '0');
  if (facts.value > cap) return `policy: value ${facts.value} wei is over this vault's per-transaction cap of ${cap} wei`;
  const feeCap = rules.maxFee === undefined ? DEFAULT_MAX_FEE_WEI : BigInt(rules.maxFee);
  if (facts.fee > feeCap) {
    return `policy: fee ${facts.fee} wei (gas × fee per gas) is over this vault's per-transaction fee cap of ${feeCap} wei${rules.maxFee === undefined ? ' (the default; raise it with --tx-max-fee)' : ''}`;
  }
  return null;
}

/** The first rule typed data breaks (its domain must be an allowed chain id and contract, with the pinned name), or null. */
export function typedDataViolation(policy: StandardSignPolicy | null, domain: TypedDataRequestFacts): string | null {
  const rules = policy?.typedData;
  if (rules === undefined) return "policy: this vault's policy allows no typed data (--typed-data-contracts)";
  if (domain.chainId === null || domain.verifyingContract === null) {
    return 'policy: typed data whose domain names no chainId or no verifyingContract is not allowed';
  }
  const chainId = domain.chainId.toString();
  const rule = rules.find((r) => r.chainId === chainId && r.verifyingContract === domain.verifyingContract);
  if (rule === undefined) {
    return `policy: typed-data domain ${chainId}:${domain.verifyingContract} is not in this vault's allowed typed-data contracts`;
  }
  if (rule.name !== undefined && rule.name !== domain.name) {
    return `policy: typed-data domain name ${JSON.stringify(domain.name)} is not the name allowed for ${chainId}:${rule.verifyingContract} (${JSON.stringify(rule.name)})`;
  }
  return null;
}

/**
 * The first rule of `policy` the request breaks, as the message a client sees, or null when it is
 * allowed. Rules are checked in a fixed order (chain, contract, selector, sender), so the same request
 * always names the same rule.
 */
export function signPolicyViolation(policy: SignPolicy | null, facts: SignRequestFacts): string | null {
  if (policy === null) return null;
  if (policy.chains && !policy.chains.includes(facts.chain)) {
    return `policy: chain ${facts.chain} is not in this vault's allowed chains`;
  }
  if (policy.contracts && !policy.contracts.includes(facts.contract)) {
    return `policy: contract ${facts.contract} is not in this vault's allowed contracts`;
  }
  if (policy.contracts) {
    const violation = unpinnedViolation(policy, facts) ?? (facts.uniq === null ? null : pinnedUniqViolation(policy, facts.contract, facts.uniq));
    if (violation !== null) return violation;
  }
  if (policy.selectors && !policy.selectors.includes(facts.selector)) {
    return `policy: function selector ${facts.selector} is not in this vault's allowed selectors`;
  }
  if (policy.senders && !policy.senders.includes(facts.sender)) {
    return `policy: sender ${facts.sender} is not in this vault's allowed senders`;
  }
  return null;
}

/** What a sign asks, for matching approval rules (as SignCall parsed it). */
export interface ApprovalFacts {
  readonly chain: string;
  readonly contract: string;
  readonly fn: ParsedFunction;
  readonly args: readonly AbiValue[];
}

/**
 * The rule that holds this sign, or null. Several may match: the one asking the most approvals holds it
 * (the first listed of those), so adding a rule never makes a sign easier to get.
 */
export function approvalRuleFor(rules: readonly ApprovalRule[], facts: ApprovalFacts): ApprovalRule | null {
  let held: ApprovalRule | null = null;
  for (const rule of rules) {
    if (!matches(rule, facts)) continue;
    if (held === null || rule.required > held.required) held = rule;
  }
  return held;
}

function matches(rule: ApprovalRule, facts: ApprovalFacts): boolean {
  if (rule.chains && !rule.chains.includes(facts.chain)) return false;
  if (rule.contracts && !rule.contracts.includes(facts.contract)) return false;
  // A colliding selector (same 4 bytes, another signature) matches: held rather than let through.
  if (rule.selector !== undefined && rule.selector !== facts.fn.selector) return false;
  if (rule.bound !== undefined && argumentRuleViolation([rule.bound], facts.fn, facts.args) === null) return false;
  return true;
}

/**
 * The first rule the request's arguments break, as the message a client sees, or null. `args` are the
 * values coerceArguments returned for `fn` (tuples as arrays in component order). Only rules of `fn`'s
 * selector are looked at, so a policy without rules, or without rules for this function, costs a loop.
 */
export function argumentRuleViolation(rules: readonly ArgumentRule[] | undefined, fn: ParsedFunction, args: readonly AbiValue[]): string | null {
  if (rules === undefined) return null;
  for (const rule of rules) {
    if (rule.selector !== fn.selector) continue;
    const problem =
      rule.signature !== undefined && rule.signature !== fn.signature
        ? `function ${fn.signature} has the selector of ${rule.signature} but is another function`
        : checkArgumentRule(rule, fn, args);
    if (problem !== null) return `policy: ${problem} (rule: ${describeArgumentRule(rule)})`;
  }
  return null;
}

/** What one sign is counted as: the wallet that signs, the contract and function it is for. */
export interface SignCountFacts {
  readonly vaultId: string;
  readonly wallet: string;
  readonly contract: string;
  readonly selector: string;
}

/**
 * The counts a sign with `facts` must fit in, one per limit that applies to it. The key names the vault,
 * the scope, what is counted and the window: limits of one window on one thing share a count (the
 * strictest binds), and a changed window starts a fresh one.
 */
export function signCountDemands(limits: readonly SignLimit[], facts: SignCountFacts): SignCountDemand[] {
  const valueOf = { wallet: facts.wallet, contract: facts.contract, function: facts.selector } as const;
  const byKey = new Map<string, SignCountDemand>();
  for (const limit of limits) {
    const value = valueOf[limit.scope];
    if (limit.target !== undefined && limit.target !== value) continue;
    const key = `${facts.vaultId}/${limit.scope}/${value}/${limit.windowMs}`;
    const held = byKey.get(key);
    if (held !== undefined && held.max <= limit.maxSigns) continue;
    byKey.set(key, { key, max: limit.maxSigns, windowMs: limit.windowMs, label: describeSignLimit({ ...limit, target: value }) });
  }
  // In key order: a counter that locks per key always locks in this order, so two signs never deadlock.
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
