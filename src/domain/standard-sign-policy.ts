import { parseAddress } from './address.js';
import { invalidArgument } from './errors.js';
import { DEFAULT_MAX_FEE_WEI } from './policy/policy-document.js';

/**
 * Standard signing (EIP-191 messages, EIP-712 typed data, transactions) is denied by default: unlike
 * Sign's lists, where an absent list allows everything, here an absent rule allows nothing. A vault
 * without a policy, or whose policy does not name these, signs none of them.
 */
export interface TransactionPolicy {
  /** The chain ids a transaction may be signed for (decimal); the switch that allows transactions at all. */
  readonly chainIds: readonly string[];
  /** The recipients (EIP-55) a transaction may go to; absent: none (only a contract creation, if allowed). */
  readonly to?: readonly string[];
  /** The function selectors (lower-case) a transaction's data may start with; absent: only transactions without data. */
  readonly selectors?: readonly string[];
  /** The most wei one transaction may carry (decimal); absent: 0. */
  readonly maxValue?: string;
  /** A transaction without `to` (it creates a contract) is allowed only with this set. */
  readonly contractCreation?: boolean;
  /** The most wei one transaction may pay in fees (gas × maxFeePerGas or gasPrice, decimal); absent: DEFAULT_MAX_FEE_WEI. */
  readonly maxFee?: string;
}

export { DEFAULT_MAX_FEE_WEI };

/** An EIP-712 domain a vault signs typed data for: chain id and verifying contract, and the name when pinned. */
export interface TypedDataDomainRule {
  /** Decimal. */
  readonly chainId: string;
  /** EIP-55. */
  readonly verifyingContract: string;
  /** The domain name required; absent: any name (the contract checks its own name in its domain separator). */
  readonly name?: string;
}

/** The standard-signing part of a vault's policy (fields of SignPolicy). */
export interface StandardSignPolicy {
  readonly transactions?: TransactionPolicy;
  readonly typedData?: readonly TypedDataDomainRule[];
  /** EIP-191 personal messages are signed only when this is true. */
  readonly messages?: boolean;
}

/** The standard-signing options an operator gives (`policies set`), values as typed. */
export interface StandardSignPolicyInput {
  /** `--tx-chain-ids`: decimal (or 0x-hex) chain ids. */
  readonly txChainIds?: readonly string[];
  /** `--tx-to`: recipient addresses. */
  readonly txTo?: readonly string[];
  /** `--tx-selectors`: 0x + 8 hex. */
  readonly txSelectors?: readonly string[];
  /** `--tx-max-value`: wei, decimal. */
  readonly txMaxValue?: string;
  /** `--tx-max-fee`: wei, decimal. */
  readonly txMaxFee?: string;
  /** `--tx-contract-creation`. */
  readonly txContractCreation?: boolean;
  /** `--typed-data-contracts`: `<chainId>:<verifyingContract>` entries. */
  readonly typedDataContracts?: readonly string[];
  /** `--typed-data-name`: `<chainId>:<verifyingContract>=<name>`, each naming a listed domain. */
  readonly typedDataNames?: readonly string[];
  /** `--messages`. */
  readonly messages?: boolean;
}

const CHAIN_ID = /^(?:[1-9][0-9]{0,19}|0x[0-9a-fA-F]{1,16})$/;
const WEI = /^(?:0|[1-9][0-9]{0,77})$/;
const SELECTOR = /^0x[0-9a-fA-F]{8}$/;
const UINT256_MAX = (1n << 256n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/** Validates and normalises the standard-signing options: chain ids decimal, addresses EIP-55, selectors lower-case. */
export function parseStandardSignPolicy(input: StandardSignPolicyInput): StandardSignPolicy {
  const policy: { -readonly [K in keyof StandardSignPolicy]: StandardSignPolicy[K] } = {};
  const transactions = parseTransactionPolicy(input);
  if (transactions) policy.transactions = transactions;
  const typedData = parseTypedDataRules(input.typedDataContracts, input.typedDataNames);
  if (typedData) policy.typedData = typedData;
  if (input.messages === true) policy.messages = true;
  return policy;
}

function parseTransactionPolicy(input: StandardSignPolicyInput): TransactionPolicy | undefined {
  const { txChainIds, txTo, txSelectors, txMaxValue, txMaxFee, txContractCreation } = input;
  if (txChainIds === undefined) {
    const dependent = ([['txTo', txTo], ['txSelectors', txSelectors], ['txMaxValue', txMaxValue], ['txMaxFee', txMaxFee], ['txContractCreation', txContractCreation || undefined]] as const).find(
      ([, v]) => v !== undefined,
    );
    if (dependent) throw invalidArgument(`${dependent[0]}: needs txChainIds (transactions are allowed per chain id)`);
    return undefined;
  }
  const rules: { -readonly [K in keyof TransactionPolicy]: TransactionPolicy[K] } = { chainIds: nonEmpty('txChainIds', txChainIds, (c) => chainIdOf(c, 'txChainIds')) };
  if (txTo !== undefined) rules.to = nonEmpty('txTo', txTo, (a) => parseAddress(a, 'txTo'));
  if (txSelectors !== undefined) {
    rules.selectors = nonEmpty('txSelectors', txSelectors, (s) => {
      if (!SELECTOR.test(s)) throw invalidArgument(`txSelectors: ${JSON.stringify(s)} is not 0x followed by 8 hex digits`);
      return s.toLowerCase();
    });
  }
  if (txMaxValue !== undefined) rules.maxValue = weiAmount('txMaxValue', txMaxValue);
  if (txMaxFee !== undefined) rules.maxFee = weiAmount('txMaxFee', txMaxFee);
  if (txContractCreation === true) rules.contractCreation = true;
  return rules;
}

/** An amount of wei as an operator typed it: a decimal integer up to 2^256 - 1. */
export function weiAmount(field: string, raw: string): string {
  const wei = raw.trim();
  if (!WEI.test(wei) || BigInt(wei) > UINT256_MAX) throw invalidArgument(`${field}: ${JSON.stringify(raw)} is not an amount of wei (a decimal integer)`);
  return wei;
}

function parseTypedDataRules(contracts: readonly string[] | undefined, names: readonly string[] | undefined): TypedDataDomainRule[] | undefined {
  if (contracts === undefined) {
    if (names !== undefined) throw invalidArgument('typedDataNames: needs typedDataContracts (a name is pinned for a listed domain)');
    return undefined;
  }
  const rules = nonEmpty('typedDataContracts', contracts, (entry) => domainKey(entry, 'typedDataContracts')).map((key) => {
    const [chainId, verifyingContract] = key.split(':') as [string, string];
    return { chainId, verifyingContract } as { chainId: string; verifyingContract: string; name?: string };
  });
  for (const pair of names === undefined ? [] : nonEmpty('typedDataNames', names, (p) => p)) {
    const at = pair.indexOf('=');
    if (at < 0) throw invalidArgument(`typedDataNames: ${JSON.stringify(pair)} is not <chainId>:<verifyingContract>=<name>`);
    const key = domainKey(pair.slice(0, at), 'typedDataNames');
    const name = pair.slice(at + 1);
    const rule = rules.find((r) => `${r.chainId}:${r.verifyingContract}` === key);
    if (rule === undefined) throw invalidArgument(`typedDataNames: domain ${key} is not in this policy's typedDataContracts`);
    if (rule.name !== undefined && rule.name !== name) throw invalidArgument(`typedDataNames: domain ${key} is given two different names`);
    rule.name = name;
  }
  return rules;
}

/** `<chainId>:<address>` normalised (decimal chain id, EIP-55 address). */
function domainKey(entry: string, field: string): string {
  const [chainId, address, ...rest] = entry.trim().split(':');
  if (address === undefined || rest.length > 0) throw invalidArgument(`${field}: ${JSON.stringify(entry)} is not <chainId>:<verifyingContract address>`);
  return `${chainIdOf(chainId!.trim(), field)}:${parseAddress(address.trim(), field)}`;
}

function chainIdOf(raw: string, field: string): string {
  const id = raw.trim();
  if (!CHAIN_ID.test(id) || BigInt(id) === 0n || BigInt(id) > UINT64_MAX) throw invalidArgument(`${field}: ${JSON.stringify(raw)} is not a chain id (a positive integer)`);
  return BigInt(id).toString();
}

/** A list the operator gave, normalised, duplicates dropped; an empty one is refused (it would allow nothing, silently). */
function nonEmpty(field: string, values: readonly string[], normalise: (v: string) => string): string[] {
  if (values.length === 0) throw invalidArgument(`${field}: must name at least one value`);
  return [...new Set(values.map((v) => normalise(v.trim())))];
}

/** The standard-signing rules as `policy.changed` records them: comma-separated, null when absent (denied). */
export function standardPolicyDetails(policy: StandardSignPolicy | null): Record<string, string | boolean | null> {
  const tx = policy?.transactions;
  return {
    txChainIds: tx ? tx.chainIds.join(',') : null,
    txTo: tx?.to ? tx.to.join(',') : null,
    txSelectors: tx?.selectors ? tx.selectors.join(',') : null,
    txMaxValue: tx ? (tx.maxValue ?? '0') : null,
    txMaxFee: tx ? (tx.maxFee ?? DEFAULT_MAX_FEE_WEI.toString()) : null,
    txContractCreation: tx?.contractCreation === true,
    typedDataContracts: policy?.typedData ? policy.typedData.map((d) => (d.name === undefined ? `${d.chainId}:${d.verifyingContract}` : `${d.chainId}:${d.verifyingContract}=${JSON.stringify(d.name)}`)).join(',') : null,
    messages: policy?.messages === true,
  };
}
