import type { ArgumentRuleInput } from '../argument-rule-input.js';
import { SIGNING_KIND_NAMES, type SigningKindName } from '../signing/kinds/registered-signing-kinds.js';
import type { FixedPrice, LimitOnExceed, PriceFeed } from './limit-escalation.js';

/**
 * One policy document per vault: every kind of signature the vault makes (a Sign call, an EIP-191
 * message, EIP-712 typed data, a transaction) is decided by the same ordered rules and counted by the
 * same limits (docs/policy.md). This file is the document's shape as an operator writes it and as it is
 * stored (JSON, values normalised by parsePolicyDocument); policy-evaluation.ts decides with it.
 */

export const POLICY_DOCUMENT_VERSION = 2;

/** What a rule's `kinds` names: the registered signing kinds (src/domain/signing/kinds/). */
export const POLICY_KINDS: readonly SigningKindName[] = SIGNING_KIND_NAMES;
export type PolicyKind = SigningKindName;

/** What a limit counts for each one of: the signing wallet, the contract, the function, the recipient. */
export const LIMIT_EACH = ['wallet', 'contract', 'function', 'recipient'] as const;
export type LimitEach = (typeof LIMIT_EACH)[number];

export interface HoldEffect {
  readonly hold: {
    /** Approvals needed (1 to 10). */
    readonly required: number;
    /** Only approver keys of this group vote. */
    readonly group?: string;
    /** How long the request waits for its quorum (`30m`, `24h`, at most `31d`; default 24h). */
    readonly expiresIn?: string;
  };
}

/** deny beats hold beats allow; a request no rule matches is refused. */
export type RuleEffect = 'allow' | 'deny' | HoldEffect;

/**
 * One condition on a decoded argument (`arg`: a name or dotted path of the rule's `function`, or a
 * position such as `args[1]`) or on a typed-data message field (`field`: a dotted path such as
 * `witness.amount`), with exactly one operator. Integers are decimal or 0x hex; addresses any case.
 */
export interface PolicyCondition extends Omit<ArgumentRuleInput, 'function' | 'arg'> {
  readonly arg?: string;
  readonly field?: string;
  /** The argument's name as refusals and approvers show it, for an `arg` given by position (`args[1]`). */
  readonly as?: string;
}

/** The filters a rule (and, but for where/unless/maxFee, a limit) may have; each one given narrows it. */
export interface RuleFilters {
  /** Absent: every kind. */
  readonly kinds?: readonly PolicyKind[];
  /** Chain names (`sepolia`) or decimal ids (`11155111`); either matches the chain of the request. */
  readonly chains?: readonly string[];
  /** The signing wallets (EIP-55). */
  readonly wallets?: readonly string[];
  /** A call's contract, a transaction's `to`, typed data's `verifyingContract` (EIP-55). */
  readonly contracts?: readonly string[];
  /**
   * Signature text with parameter names (`transfer(address to, uint256 amount)`): a call's function, or
   * the function a transaction's calldata calls. A selector alone (`0xa9059cbb`) is accepted only
   * without integer conditions, which it cannot type.
   */
  readonly function?: string;
  /** Function selectors (0x + 8 hex); `0x` matches a transaction without calldata (a plain transfer). */
  readonly selectors?: readonly string[];
  /** A call's `sender` (EIP-55). */
  readonly senders?: readonly string[];
  /** Typed data's `primaryType`. */
  readonly primaryTypes?: readonly string[];
  /** Typed data's domain `name`. */
  readonly domainNames?: readonly string[];
  /** true: only transactions that create a contract (no `to`). */
  readonly create?: boolean;
  /** Conditions that must all hold for the rule to match. */
  readonly where?: readonly PolicyCondition[];
  /** The rule matches only when these do not all hold (Cedar's `unless`): "deny transfer unless amount lte 1000". */
  readonly unless?: readonly PolicyCondition[];
  /** Wei; a transaction's value at most this (other kinds carry 0). */
  readonly maxValue?: string;
  /** Wei; a transaction's value at least this: what a hold of large payments says ("over 1 ETH needs two"). */
  readonly minValue?: string;
  /**
   * Wei; a transaction's fee (gas × maxFeePerGas or gasPrice) at most this. An allow or hold rule
   * without one matches a transaction's fee up to DEFAULT_MAX_FEE_WEI.
   */
  readonly maxFee?: string;
}

export interface PolicyRule extends RuleFilters {
  /** Unique in the document: what a refusal, a hold and the dry run name. */
  readonly id: string;
  readonly effect: RuleEffect;
  /** Free text for people (shown by `policies export` and the console). */
  readonly description?: string;
  /**
   * false: a transaction this rule allows or holds is signed without being simulated first (a chain
   * whose RPC cannot run it, a call meant to revert). Absent: simulated wherever the chain has an RPC.
   */
  readonly simulate?: false;
  /**
   * Wei; the most the wallet's native balance may fall by in the simulation (eth_simulateV1 with
   * traceTransfers), the fee aside (maxFee bounds it). Checked on the rule that decides, after the
   * decision: over it is a refusal; a node that cannot report balance changes fails closed (502).
   */
  readonly maxOutflow?: string;
  /** ERC-20 contract (EIP-55) → the most of that token the wallet's balance may fall by in the simulation, as maxOutflow. */
  readonly maxTokenOutflow?: Readonly<Record<string, string>>;
  /** An `authorization` rule only: also EIP-7702 authorizations of chain id 0, valid on every chain. */
  readonly anyChain?: true;
}

/** What the deciding rule says of the simulation (docs/policy.md, "Simulation"). */
export type SimulationDemand = Pick<PolicyRule, 'simulate' | 'maxOutflow' | 'maxTokenOutflow'>;

/** At most `maxSigns` signatures in any rolling window `per`, counted apart for each `each`. */
export interface PolicyLimit {
  readonly id: string;
  readonly kinds?: readonly PolicyKind[];
  readonly chains?: readonly string[];
  readonly wallets?: readonly string[];
  readonly contracts?: readonly string[];
  readonly selectors?: readonly string[];
  /** Absent: one count over everything the limit's filters match. */
  readonly each?: LimitEach;
  readonly maxSigns?: number;
  /**
   * Wei moved (a transaction's value plus its fee) in the window, or with `token` the ERC-20 amount of
   * that token (transfer, transferFrom and approve calldata; Permit, TransferWithAuthorization and
   * ReceiveWithAuthorization typed data; the limit's `moves`), decimal. Reserved before the signature is released, atomically
   * across instances.
   */
  readonly maxValue?: string;
  /** The ERC-20 contract whose amounts `maxValue` counts (EIP-55). */
  readonly token?: string;
  /**
   * With `token`: the token's movements the limit reads besides the ones it knows (token-movements.ts).
   * Anything else that reaches the token counts as more than the limit: an amount the vault cannot
   * read is never let through a limit on it.
   */
  readonly moves?: readonly TokenMovement[];
  /** `30s` … `31d`. */
  readonly per: string;
  /** Past the limit: held for approvers instead of refused (limit-escalation.ts). */
  readonly onExceed?: LimitOnExceed;
  /** US dollars moved in the window (decimal), priced by the document's prices or priceFeeds. */
  readonly maxValueUsd?: string;
}

/**
 * One more way a limit's token moves: a function (a transaction's calldata, a Sign call's function) or
 * typed data of the token's domain of a primary type, and where the amount it moves is.
 */
export interface TokenMovement {
  /**
   * Signature text with parameter names (`increaseAllowance(address spender, uint256 addedValue)`), a
   * selector, or `0x` (a transaction without calldata); the last two with `amount` 0 only: they have no
   * types to read an amount by.
   */
  readonly function?: string;
  /** Typed data's `primaryType`. */
  readonly primaryType?: string;
  /**
   * The argument (a name, dotted path or `args[i]` of `function`, no array on the way) or message field
   * (a dotted path) holding the amount, an integer; the number 0: it moves none of the token.
   */
  readonly amount: string | 0;
  /** The argument or field naming who gets (or may take) the amount: what `each: recipient` counts by. */
  readonly recipient?: string;
}

export interface PolicyDocument {
  readonly version: typeof POLICY_DOCUMENT_VERSION;
  readonly rules: readonly PolicyRule[];
  readonly limits: readonly PolicyLimit[];
  /**
   * The uniq each contract signs with (EIP-55 → lower-case bytes32). A Sign's digest binds the uniq, not
   * the contract address, so a rule naming a call's contract binds nothing unless its uniq is pinned: a
   * pin is enforced on every chain, and a call allowed only by rules naming its contract is refused
   * without one (unless the contract is in trustRpcUniq and the chain has an RPC).
   */
  readonly uniqs?: Readonly<Record<string, string>>;
  /** Contracts whose unpinned uniq the vault takes from the chain's RPC as it answers (docs/security.md). */
  readonly trustRpcUniq?: readonly string[];
  /**
   * The approval rules of the older commands (`policies approvals add`), each as the one hold rule of its
   * own filters (id `a<n>`): what it holds is the rules `a<n>` and `a<n>.<rule>`, that hold within each
   * allow rule. Nothing decides by this list; `policies set` derives those rules from it again when it
   * replaces the allow rules of the lists, and `policies approvals remove` takes the entry away with them.
   */
  readonly approvalRules?: readonly PolicyRule[];
  /**
   * The operator's names of contracts (EIP-55 → name), shown to approvers beside the address (the
   * console's `contract.name`). Part of the document, so on a governed vault a name changes only by a
   * signed proposal: whoever writes the database cannot rename a contract to mislead approvers. Nothing
   * decides by a name. Absent when none are given (an empty map is stored as none: the same state hash).
   */
  readonly contractNames?: Readonly<Record<string, string>>;
  /** Operator-set USD prices (token EIP-55 or `native` → price of one whole unit), for limits' maxValueUsd. */
  readonly prices?: Readonly<Record<string, FixedPrice>>;
  /** On-chain USD price feeds (Chainlink AggregatorV3), keyed as prices. */
  readonly priceFeeds?: Readonly<Record<string, PriceFeed>>;
  /**
   * ERC-20 tokens (EIP-55 → symbol and decimals), so that every view shows an amount in the token's units
   * beside its base units (address-book.ts). Nothing decides by them.
   */
  readonly tokens?: Readonly<Record<string, TokenInfo>>;
  /** The operator's names of any address (recipients, spenders, …; EIP-55 → name), as contractNames; nothing decides by a name. */
  readonly addressNames?: Readonly<Record<string, string>>;
}

/** A token as the document's `tokens` names it. */
export interface TokenInfo {
  readonly symbol: string;
  readonly decimals: number;
}

/**
 * The fee cap of an allow rule that names none: 0.01 of the chain's native unit (10^16 wei), room for
 * 333 000 gas at 30 gwei. Without a cap the fee is a second value field nothing bounds: a transaction to
 * an allowed recipient with value 0 and gasPrice = balance / 21 000 hands the whole balance to the block
 * builder. A rule that needs more says so (`maxFee`).
 */
export const DEFAULT_MAX_FEE_WEI = 10n ** 16n;

/** Bounds on one document, so that deciding a request with it stays cheap and its JSON stays small. */
export const POLICY_DOCUMENT_LIMITS = Object.freeze({
  maxRules: 256,
  maxLimits: 64,
  maxConditions: 32,
  /** Values in one list. */
  maxValues: 1000,
  /** Values in all lists of the document. */
  maxDocumentValues: 10_000,
  maxTextLength: 256,
  /** Entries of contractNames, and characters of one name. */
  maxContractNames: 1000,
  maxContractNameLength: 64,
});

export const isHold = (effect: RuleEffect): effect is HoldEffect => typeof effect === 'object';

/** `allow`, `deny` or `hold 2 (group treasury)`: an effect as people read it. */
export const describeEffect = (effect: RuleEffect): string =>
  isHold(effect) ? `hold ${effect.hold.required}${effect.hold.group === undefined ? '' : ` (group ${effect.hold.group})`}` : effect;
