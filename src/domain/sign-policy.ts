import { parseAddress } from './address.js';
import { invalidArgument } from './errors.js';

/**
 * A vault's optional allow-lists for Sign. An absent list allows everything of its kind; a present list
 * allows only what it names. Addresses are EIP-55, selectors 0x-prefixed lower-case 4-byte hex.
 */
export interface SignPolicy {
  readonly chains?: readonly string[];
  readonly contracts?: readonly string[];
  readonly selectors?: readonly string[];
  readonly senders?: readonly string[];
}

/** What a sign request asks for, as SignCall has parsed it (addresses EIP-55, selector lower-case). */
export interface SignRequestFacts {
  readonly chain: string;
  readonly contract: string;
  readonly selector: string;
  readonly sender: string;
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
  if (policy.selectors && !policy.selectors.includes(facts.selector)) {
    return `policy: function selector ${facts.selector} is not in this vault's allowed selectors`;
  }
  if (policy.senders && !policy.senders.includes(facts.sender)) {
    return `policy: sender ${facts.sender} is not in this vault's allowed senders`;
  }
  return null;
}

const SELECTOR = /^0x[0-9a-fA-F]{8}$/;

/** The lists an operator gives, each optional; values as typed (any case). */
export interface SignPolicyInput {
  readonly chains?: readonly string[];
  readonly contracts?: readonly string[];
  readonly selectors?: readonly string[];
  readonly senders?: readonly string[];
}

/**
 * Validates and normalises a policy: chains from `knownChains`, addresses accepted in any case when
 * uniform or correctly checksummed and stored EIP-55, selectors stored lower-case; duplicates dropped,
 * order kept. A given list must name at least one value (an empty allow-list would silently stop every
 * sign; revoking the vault's keys says that plainly), and at least one list must be given.
 */
export function parseSignPolicy(input: SignPolicyInput, knownChains: readonly string[]): SignPolicy {
  const list = (field: keyof SignPolicyInput, normalise: (value: string) => string): string[] | undefined => {
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
  if (Object.keys(policy).length === 0) {
    throw invalidArgument('policy: give at least one of chains, contracts, selectors, senders (or clear the policy)');
  }
  return policy;
}
