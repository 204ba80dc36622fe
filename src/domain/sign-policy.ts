import { parseAddress } from './address.js';
import type { ApprovalRule } from './approval-rules.js';
import type { ArgumentRule } from './argument-rules.js';
import type { SignLimit } from './sign-limits.js';
import { invalidArgument } from './errors.js';
import { parseStandardSignPolicy, type StandardSignPolicy, type StandardSignPolicyInput } from './standard-sign-policy.js';

/**
 * A vault's optional allow-lists for Sign. An absent list allows everything of its kind; a present list
 * allows only what it names. Addresses are EIP-55, selectors 0x-prefixed lower-case 4-byte hex. The
 * standard-signing rules (StandardSignPolicy: messages, typed data, transactions) are the opposite,
 * deny by default: see standard-sign-policy.ts.
 */
export interface SignPolicy extends StandardSignPolicy {
  readonly chains?: readonly string[];
  readonly contracts?: readonly string[];
  readonly selectors?: readonly string[];
  readonly senders?: readonly string[];
  /**
   * The uniq each listed contract signs with, by contract (EIP-55 → lower-case bytes32). The signable
   * digest binds uniq but not the contract address, so naming a contract binds nothing unless its uniq
   * is bound too: a pinned uniq is enforced on every chain, and a listed contract without a pin is
   * refused, unless it is in `trustRpcUniq` and the chain has an RPC.
   */
  readonly uniqs?: Readonly<Record<string, string>>;
  /**
   * Listed contracts (EIP-55) whose unpinned uniq the operator takes from the chain's RPC as it answers.
   * Whoever controls that RPC then chooses what the vault signs for them: a uniq of any other contract
   * of the same signer. An explicit, audited choice, never the default; on chains without an RPC it
   * changes nothing (a pin is still required there).
   */
  readonly trustRpcUniq?: readonly string[];
  /**
   * Rules on the decoded arguments of named functions (argument-rules.ts), managed apart from the lists
   * (`policies rules add|remove|clear`): replacing the lists keeps them.
   */
  readonly rules?: readonly ArgumentRule[];
  /**
   * Limits on how many signs per rolling window (sign-limits.ts), managed apart from the lists
   * (`policies limits add|remove|clear`) and kept when they are replaced; counted in the database.
   */
  readonly limits?: readonly SignLimit[];
  /**
   * Rules that hold a sign until a quorum of approver keys approves it (approval-rules.ts), managed apart
   * from the lists (`policies approvals add|remove|clear`) and kept when they are replaced.
   */
  readonly approvals?: readonly ApprovalRule[];
}

/** What a sign request asks for, as SignCall has parsed it (addresses EIP-55, selector and uniq lower-case). */
export interface SignRequestFacts {
  readonly chain: string;
  readonly contract: string;
  readonly selector: string;
  readonly sender: string;
  /**
   * The uniq the request would be signed with when it comes from the request (a chain without an RPC),
   * or null when the vault reads it from the contract afterwards (then check it with pinnedUniqViolation).
   */
  readonly uniq: string | null;
}

/**
 * Fail closed on a listed contract without a pin: where uniq comes from the request, the request's own
 * uniq is all there is; where it is read from an RPC, the RPC chooses it, and a false answer makes the
 * vault sign for another contract of the same signer. Only a pin, or (RPC chains) the operator's
 * explicit trust in the RPC for this contract, lets the sign through.
 */
export function unpinnedViolation(policy: Pick<SignPolicy, 'uniqs' | 'trustRpcUniq'>, facts: Pick<SignRequestFacts, 'chain' | 'contract' | 'uniq'>): string | null {
  const { contract, chain } = facts;
  if (policy.uniqs?.[contract] !== undefined) return null;
  const pin = `wallet-vault policies set --contract-uniq ${contract}=<uniq>`;
  if (facts.uniq !== null) {
    return `policy: contract ${contract} has no pinned uniq, required on chain ${chain} where the vault cannot read uniq() (pin it: ${pin})`;
  }
  if (policy.trustRpcUniq?.includes(contract)) return null;
  return `policy: contract ${contract} has no pinned uniq, and the RPC of chain ${chain} is not trusted to choose it (pin it: ${pin}, or trust the RPC for it: --trust-rpc-uniq ${contract})`;
}

/**
 * The pinned-uniq rule alone, for a uniq read from the contract after the other rules passed: null when
 * the contract has no pin or `uniq` is the pinned one.
 */
export function pinnedUniqViolation(policy: Pick<SignPolicy, 'uniqs'> | null, contract: string, uniq: string): string | null {
  const pinned = policy?.uniqs?.[contract];
  if (pinned === undefined || pinned === uniq.toLowerCase()) return null;
  return `policy: uniq ${uniq.toLowerCase()} is not the uniq pinned for contract ${contract}`;
}

const SELECTOR = /^0x[0-9a-fA-F]{8}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

/** The lists an operator gives, each optional; values as typed (any case). */
export interface SignPolicyInput extends StandardSignPolicyInput {
  readonly chains?: readonly string[];
  readonly contracts?: readonly string[];
  readonly selectors?: readonly string[];
  readonly senders?: readonly string[];
  /** `contract=uniq` pairs; each contract must be in `contracts`, at most one uniq per contract. */
  readonly contractUniqs?: readonly string[];
  /** Listed contracts whose uniq is taken from the chain's RPC without a pin (see SignPolicy.trustRpcUniq). */
  readonly trustRpcUniq?: readonly string[];
}

/**
 * Validates and normalises a policy: chains from `knownChains`, addresses accepted in any case when
 * uniform or correctly checksummed and stored EIP-55, selectors stored lower-case; duplicates dropped,
 * order kept. A given list must name at least one value (an empty allow-list would silently stop every
 * sign; revoking the vault's keys says that plainly), and at least one list must be given.
 */
export function parseSignPolicy(input: SignPolicyInput, knownChains: readonly string[]): SignPolicy {
  const list = (field: keyof Omit<SignPolicyInput, keyof StandardSignPolicyInput>, normalise: (value: string) => string): string[] | undefined => {
    const raw = input[field];
    if (raw === undefined) return undefined;
    if (raw.length === 0) throw invalidArgument(`${field}: must name at least one value (clear the policy to allow everything)`);
    return [...new Set(raw.map((v) => normalise(v.trim())))];
  };
  const policy: { -readonly [K in keyof SignPolicy]: SignPolicy[K] } = {};
  const chains = list('chains', (c) => {
    if (!knownChains.includes(c)) throw invalidArgument(`chains: ${JSON.stringify(c)} is not one of ${knownChains.join(', ')}`);
    return c;
  });
  const contracts = list('contracts', (a) => parseAddress(a, 'contracts'));
  const selectors = list('selectors', (s) => {
    if (!SELECTOR.test(s)) throw invalidArgument(`selectors: ${JSON.stringify(s)} is not 0x followed by 8 hex digits`);
    return s.toLowerCase();
  });
  const senders = list('senders', (a) => parseAddress(a, 'senders'));
  if (chains) policy.chains = chains;
  if (contracts) policy.contracts = contracts;
  if (selectors) policy.selectors = selectors;
  if (senders) policy.senders = senders;
  const uniqs = parseUniqPins(input.contractUniqs, contracts);
  if (uniqs) policy.uniqs = uniqs;
  const trusted = list('trustRpcUniq', (a) => {
    const contract = parseAddress(a, 'trustRpcUniq');
    if (!contracts?.includes(contract)) {
      throw invalidArgument(`trustRpcUniq: contract ${contract} is not in this policy's contracts (the option trusts the RPC for a listed contract)`);
    }
    if (uniqs?.[contract] !== undefined) {
      throw invalidArgument(`trustRpcUniq: contract ${contract} has a pinned uniq; a pin is checked on every chain, so trusting the RPC for it would mean nothing`);
    }
    return contract;
  });
  if (trusted) policy.trustRpcUniq = trusted;
  Object.assign(policy, parseStandardSignPolicy(input));
  if (Object.keys(policy).length === 0) {
    throw invalidArgument(
      'policy: give at least one of chains, contracts, selectors, senders, or a standard-signing rule (txChainIds, typedDataContracts, messages) (or clear the policy)',
    );
  }
  return policy;
}

function parseUniqPins(pairs: readonly string[] | undefined, contracts: readonly string[] | undefined): Record<string, string> | undefined {
  if (pairs === undefined) return undefined;
  if (pairs.length === 0) throw invalidArgument('contractUniqs: must name at least one contract=uniq pair');
  const uniqs: Record<string, string> = {};
  for (const pair of pairs) {
    const [rawContract, rawUniq, ...rest] = pair.trim().split('=');
    if (rawUniq === undefined || rest.length > 0) {
      throw invalidArgument(`contractUniqs: ${JSON.stringify(pair)} is not <contract address>=<uniq>`);
    }
    const contract = parseAddress(rawContract!.trim(), 'contractUniqs');
    const uniq = rawUniq.trim();
    if (!BYTES32.test(uniq)) throw invalidArgument(`contractUniqs: uniq ${JSON.stringify(uniq)} is not 0x-prefixed 32-byte hex`);
    if (!contracts?.includes(contract)) {
      throw invalidArgument(`contractUniqs: contract ${contract} is not in this policy's contracts (a pin binds a listed contract)`);
    }
    if (uniqs[contract] !== undefined && uniqs[contract] !== uniq.toLowerCase()) {
      throw invalidArgument(`contractUniqs: contract ${contract} is pinned to two different uniqs`);
    }
    uniqs[contract] = uniq.toLowerCase();
  }
  return uniqs;
}
