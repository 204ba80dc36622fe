import type { AbiParameter as AbitypeParameter, AbiParametersToPrimitiveTypes } from 'abitype';
/** The answers of the API, with the interface's field names. Instants are ISO 8601 strings (UTC). */

import type { ChainName } from './chains.js';
import type { SigningKindName } from './signing-kinds.js';
import type { TypedDataToSignWith } from './typed-data-signer.js';

export type Hex = `0x${string}`;

export interface Wallet {
  readonly id: string;
  readonly account: string;
  readonly vault: string;
  readonly name: string;
  /** EIP-55 checksummed. */
  readonly address: Hex;
  readonly created: string;
  readonly updated: string;
  /** Present while the wallet is expiring; from that instant on it is gone (404). */
  readonly expires?: string;
  /** For a wallet derived from its vault's HD seed: its BIP-32 path (`m/44'/60'/0'/0/i`). */
  readonly derivationPath?: string;
  /** Present once its key (or its vault's HD seed) was exported, encrypted to a recipient: when it first was (ISO 8601). Never removed. */
  readonly exported?: string;
}

export interface WalletPage {
  /** The vault's total number of wallets, not the page length. */
  readonly count: number;
  readonly page: Wallet[];
}

export interface VaultStatus {
  readonly timestamp: string;
  readonly online: boolean;
  readonly vaultKeys: number;
  readonly wallets: number;
  readonly version: string;
}

/** The interface's chains, or a chain the server adds with VAULT_CHAINS (`arbitrum`, …). */
export type Chain = ChainName | (string & {});

export interface AbiParameter {
  readonly name?: string;
  readonly type: string;
  readonly components?: readonly AbiParameter[];
  readonly [extra: string]: unknown;
}

/** The single ABI item of the function being signed; one input is the `(bytes32 nonce, bytes32 r, bytes32 s, uint8 v)` tuple. */
export interface AbiFunction {
  readonly type?: 'function';
  readonly name: string;
  readonly inputs: readonly AbiParameter[];
  readonly [extra: string]: unknown;
}

export interface SignRequest<F extends AbiFunction = AbiFunction> {
  readonly chain: Chain;
  readonly contract: string;
  readonly sender: string;
  /** With the item written `as const`, the answer's `args` are typed as the function's inputs (SignedArgs). */
  readonly abi: F;
  /** The function's arguments without the signature parameter, in order (see docs/api.md for their JSON). */
  readonly args: readonly unknown[];
  /** Required for `local` and for chains without an RPC configured on the server. */
  readonly uniq?: string;
  readonly signer?: string;
  /** true: the call is run on its chain with the signature in place before it is answered (a revert: 422 SIMULATION_REVERTED). */
  readonly simulate?: boolean;
}

export interface SignatureStruct {
  readonly nonce: Hex;
  readonly r: Hex;
  readonly s: Hex;
  readonly v: 27 | 28;
}

/**
 * The on-chain call's arguments of function `F`, typed as abitype (and so viem's `writeContract`) types
 * them when the ABI item is a literal (`as const`): integers of up to 48 bits as `number`, wider ones as
 * `bigint`, addresses and bytes as `0x` strings, tuples and arrays as theirs. Otherwise `unknown[]`.
 */
export type SignedArgs<F extends AbiFunction> = F['inputs'] extends readonly AbitypeParameter[]
  ? number extends F['inputs']['length']
    ? unknown[]
    : AbiParametersToPrimitiveTypes<F['inputs'], 'inputs'>
  : unknown[];

export interface SignResult<F extends AbiFunction = AbiFunction> {
  /** keccak256(abi.encode(nonce, r, s, v)): what the contract records, and the key of `submit`. */
  readonly submissionHash: Hex;
  /**
   * The arguments as sent with the SignatureStruct at the signature parameter's position: the on-chain
   * call's arguments, integers as `number` (up to 48 bits) or `bigint`, as viem and ethers take them.
   */
  readonly args: SignedArgs<F>;
}

/** Where a held sign stands; only `approved` was ever signed. */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

/** What a held Sign call asks, exactly as the Sign request gave it, with the function and its arguments decoded. */
export interface ApprovalCallRequest {
  readonly chain: Chain;
  readonly contract: Hex;
  /** The operator's name of `contract` (the vault policy's `contractNames`); absent when the policy names it not. */
  readonly contractName?: string;
  readonly sender: Hex;
  readonly uniq?: Hex;
  readonly signer?: Hex;
  /**
   * With `uniq`: the contracts the vault's policy pins it to, the uniq it pins for `contract`, and a warning
   * for approvers when `contract` is not the one the uniq is pinned to (a signature binds the uniq, not the address).
   */
  readonly uniqBinding?: {
    readonly pinnedFor: readonly { readonly address: Hex; readonly name: string | null }[];
    readonly contractPin: Hex | null;
    readonly warning: string | null;
  };
  readonly function: string;
  readonly selector: Hex;
  /** `name` is the operator's (its policy's function of this selector), else `args[0]`, `args[1]`, ...: never the names of the requester's ABI item. */
  readonly arguments: readonly {
    readonly name: string;
    readonly type: string;
    readonly value: unknown;
    /** The operator's name of an address value (policy `addressNames`, else `contractNames`); absent when none names it. */
    readonly addressName?: string;
    /** A transfer's, transferFrom's or approve's amount of a token the policy's `tokens` names, in its units. */
    readonly tokenAmount?: TokenAmount;
  }[];
}

/** An amount in a token's units (the policy document's `tokens`): `units` `15 000`, `text` `15 000 TUSD (15000000000)`. */
export interface TokenAmount {
  readonly symbol: string;
  readonly decimals: number;
  readonly units: string;
  readonly text: string;
}

/** What a held message, typed data or transaction asks: the wallet, and the body as it was given (bigints as decimal strings). */
export interface ApprovalStandardRequest {
  readonly wallet: Hex;
  readonly message?: MessageToSign;
  readonly typedData?: TypedDataToSign;
  readonly transaction?: TransactionToSign;
  readonly authorization?: AuthorizationToSign;
  /** A held transaction's transfer, transferFrom or approve of a token the policy's `tokens` names, with names and units beside the values. */
  readonly tokenCall?: {
    readonly token: Hex;
    readonly symbol: string;
    readonly function: 'transfer' | 'transferFrom' | 'approve';
    readonly arguments: readonly { readonly name: string; readonly type: 'address' | 'uint256'; readonly value: string; readonly addressName?: string; readonly tokenAmount?: TokenAmount }[];
  };
}

/** What a request a hold rule holds is: a Sign call, or a wallet's message, typed data, transaction or authorization. */
export type ApprovalKind = SigningKindName;

/** A request a hold rule of the vault's policy holds until a quorum of approver keys approves it. */
export interface Approval {
  readonly id: string;
  readonly kind: ApprovalKind;
  /** As of the answer: a pending approval past `expires` is `expired`. */
  readonly status: ApprovalStatus;
  /** Approvals needed (M). */
  readonly required: number;
  /** Approve votes counted so far (the same number as `approvalCount`). */
  readonly approvals: number;
  /** Approve votes counted so far: what a proposal's `approvalCount` counts too. */
  readonly approvalCount: number;
  readonly expires: string;
  readonly created: string;
  readonly decided: string | null;
  /** The policy's rule that held it (`a1`, ...). */
  readonly rule: string;
  /** Only approver keys of this group vote on it; null: any approver key. */
  readonly group: string | null;
  /** `api-key:<id>`: the key that asked (it can never vote on its own request). */
  readonly requester: string;
  /** The requester key's label (the operator's, beside its id); absent when it has none. */
  readonly requesterLabel?: string;
  /** What is asked: a call's (`kind` call), or a message's, typed data's or a transaction's. */
  readonly request: ApprovalCallRequest | ApprovalStandardRequest;
  /**
   * sha256 of the held request, `0x` + 64 hex digits: the `request` of the EIP-712 `Decision` an approver
   * signs (decisionTypedData(vaultId, id, requestHash, 'approve' | 'reject')).
   */
  readonly requestHash: string;
  /** `signature`: the vote's EIP-712 Decision signature; null for a key without credential. */
  readonly votes: readonly { readonly by: string; readonly byLabel?: string; readonly vote: 'approve' | 'reject'; readonly at: string; readonly signature: string | null }[];
  /** The result once approved, as the request's method answers it (Sign's; a signature; a signed transaction); null before. */
  readonly result: SignResult | SignatureResult | SignedTransaction | SignedAuthorization | null;
  /**
   * What the simulation of a held transaction found when it was held: the chain, `eth_call` or
   * `eth_simulateV1`, and the wallet's outflows (decimal) when a rule bounds them; null when it was not simulated.
   */
  readonly simulation: {
    readonly chain: string;
    readonly method: 'eth_call' | 'eth_simulateV1';
    readonly nativeOutflow?: string;
    readonly tokenOutflow?: Readonly<Record<string, string>>;
    /** `tokenOutflow` of the tokens the policy's `tokens` names, in their units. */
    readonly tokenOutflowUnits?: Readonly<Record<string, TokenAmount>>;
  } | null;
  /**
   * Why a pending request with its quorum is not released: the refusal of its last release attempt
   * (`limit`, `freeze`, `governance`, `simulation`, `sealed`), its error code and message; null when none
   * was refused or it is decided. Absent from servers before it.
   */
  readonly blockedBy?: ApprovalBlockedBy | null;
}

/** Why a pending request with its quorum is not released (Approval.blockedBy). */
export interface ApprovalBlockedBy {
  readonly reason: 'limit' | 'freeze' | 'governance' | 'simulation' | 'sealed';
  /** The refusal's stable error code (`RATE_LIMITED`, `VAULT_FROZEN`, ...). */
  readonly code: string;
  readonly message: string;
  /** ISO 8601. */
  readonly at: string;
}

export interface ApprovalPage {
  /** Approvals of the vault with the status asked (not the page length). */
  readonly count: number;
  readonly page: Approval[];
}

/** What a Sign answers: the signature (200), or the approval that holds it (202). */
export type SignOutcome<F extends AbiFunction = AbiFunction> = SignResult<F> | { readonly approval: Approval };

/** What sign-message, sign-typed-data or sign-transaction answers: the result (200), or the approval that holds it (202). */
export type StandardOutcome<T extends SignatureResult | SignedTransaction | SignedAuthorization> = T | { readonly approval: Approval };

export interface Submission {
  readonly submissionHash: Hex;
  readonly vault: string;
  readonly wallet: Hex;
  readonly chain: Chain;
  readonly contract: Hex;
  readonly sender: Hex;
  readonly selector: Hex;
  readonly signed: string;
  readonly transactionHash: Hex | null;
  readonly submitted: string | null;
}

/** A personal message: text (signed as its UTF-8 bytes) or `{ raw: "0x…" }` (bytes as they are). */
export type MessageToSign = string | { readonly raw: Hex };

/** A quantity as JSON carries it (a bigint is sent as its decimal string). */
export type Quantity = number | bigint | string;

/** EIP-712 typed data as viem's `signTypedData` takes it. */
export interface TypedDataToSign {
  readonly domain: {
    readonly name?: string;
    readonly version?: string;
    readonly chainId?: Quantity;
    readonly verifyingContract?: string;
    readonly salt?: Hex;
  };
  readonly types: Readonly<Record<string, readonly { readonly name: string; readonly type: string }[]>>;
  readonly primaryType: string;
  readonly message: Readonly<Record<string, unknown>>;
}

/** A transaction as viem serialises it; `chainId`, `nonce`, `gas` and the fees of its type are required. */
export interface TransactionToSign {
  readonly type?: 'legacy' | 'eip2930' | 'eip1559' | 'eip7702';
  readonly chainId: Quantity;
  readonly nonce: Quantity;
  /** Absent or null: a contract creation. */
  readonly to?: string | null;
  /** When given, the signing wallet. */
  readonly from?: string;
  readonly value?: Quantity;
  readonly data?: Hex;
  readonly gas?: Quantity;
  readonly gasLimit?: Quantity;
  readonly gasPrice?: Quantity;
  readonly maxFeePerGas?: Quantity;
  readonly maxPriorityFeePerGas?: Quantity;
  readonly accessList?: readonly { readonly address: string; readonly storageKeys: readonly Hex[] }[];
  /** eip7702 (type 4): the signed authorizations it carries (signAuthorization answers one). */
  readonly authorizationList?: readonly (AuthorizationToSign & { readonly yParity: Quantity; readonly r: Hex; readonly s: Hex })[];
}

/**
 * An EIP-7702 authorization: the wallet's account delegated to the contract `address` on `chainId` (0:
 * every chain, allowed only by a rule with `anyChain`), at the account nonce `nonce` it will have when the
 * authorization is applied (its current nonce + 1 when the wallet sends the type-4 transaction itself).
 */
export interface AuthorizationToSign {
  readonly chainId: Quantity;
  readonly address: string;
  readonly nonce: Quantity;
}

/** A signed authorization: 65 bytes `r ‖ s ‖ v` (`v` 27 or 28), and its parts as a type-4 transaction carries them. */
export interface SignedAuthorization {
  readonly signature: Hex;
  readonly yParity: 0 | 1;
  readonly r: Hex;
  readonly s: Hex;
}

/** 65 bytes `r ‖ s ‖ v` (`v` 27 or 28, `s` low). */
export interface SignatureResult {
  readonly signature: Hex;
}

export interface SignedTransaction {
  /** The signed transaction, as `eth_sendRawTransaction` takes it. */
  readonly serialized: Hex;
  readonly hash: Hex;
}

/** The kinds of signature the vault's one policy decides. */
export type PolicyKind = SigningKindName;

/** What the policy's dry run answers: the decision, the deciding rule (null when none matched) and why. */
export interface PolicyVerdict {
  readonly decision: 'allow' | 'deny' | 'hold';
  readonly rule: string | null;
  readonly message: string;
}

/** A governed vault's state (docs/governance.md): its keccak256 over canonical JSON is the document hash approvers sign. */
export interface GovernedState {
  readonly version: 1;
  readonly vault: string;
  readonly previous: string | null;
  /** The policy document (docs/policy.md); null: no policy. */
  readonly policy: Readonly<Record<string, unknown>> | null;
  readonly governance: { readonly required: number; readonly approvers: readonly string[]; readonly delay: string };
  readonly liftedFreezes: number;
  /** The API keys that authenticate and their powers, by id (absent: keys not governed by the state). */
  readonly apiKeys?: readonly {
    readonly id: string;
    readonly roles: readonly string[];
    readonly group: string | null;
    readonly approverAddress: string | null;
    /** sha256 (hex) of the key's secret, which a presented secret must match; absent from states made before it. */
    readonly secretHash?: string;
    /** The passkey its console votes are verified with (base64url), on a key enrolled through the console only. */
    readonly passkey?: { readonly credentialId: string; readonly publicKey: string };
  }[];
  /** The webhook endpoints events go to, by id (absent: not governed by the state). */
  readonly webhooks?: readonly { readonly id: string; readonly url: string; readonly events: readonly string[] }[];
}

/** Entries (API keys, webhook endpoints) a proposal adds, removes or changes, by id. */
export interface EntriesDiff {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  /** The state before did not govern these; this change starts to. */
  readonly nowGoverned?: true;
}

/** `vault.governance()`: the state in force, its hash and pin, frozen or not, and why it does not verify. */
export interface Governance {
  readonly vault: string;
  readonly governed: boolean;
  readonly state: GovernedState | null;
  readonly hash: string | null;
  readonly genesisHash: string | null;
  /** `VAULT_GOVERNANCE_PINS=<vault>:<genesis hash>`. */
  readonly pin: string | null;
  readonly pinned: boolean;
  readonly frozen: boolean;
  readonly freezes: number;
  readonly liftedFreezes: number;
  /** Non-null: the vault's governance does not verify and it signs nothing (GOVERNANCE_UNVERIFIED). */
  readonly problem: string | null;
}

export type ProposalStatus = 'pending' | 'applied' | 'rejected' | 'superseded';

/** A proposed change of a governed vault: what it changes, who signed it, what to sign. */
export interface Proposal {
  readonly id: string;
  readonly vault: string;
  readonly documentHash: string;
  readonly previous: string;
  readonly status: ProposalStatus;
  readonly creator: string;
  readonly created: string;
  readonly decided: string | null;
  /**
   * The approvers whose valid PolicyChange signatures it carries.
   * @deprecated as the count: an approval's `approvals` is a number, this a list; count with `approvalCount`.
   */
  readonly approvals: readonly string[];
  /** Valid PolicyChange signatures of current approvers it carries (the length of `approvals`), as an approval's `approvalCount`. */
  readonly approvalCount: number;
  readonly required: number;
  readonly effectiveAt: string | null;
  readonly rejectedBy: string | null;
  readonly diff: {
    readonly policy: {
      readonly added: readonly string[];
      readonly removed: readonly string[];
      readonly changed: readonly string[];
      readonly replaced?: 'set' | 'removed';
      /** What each changed entry changed, field by field (`{entry: 'rule payouts', field: 'maxValue', from: '1', to: '2'}`); absent when nothing changed. */
      readonly fields?: readonly { readonly entry: string; readonly field: string; readonly from: unknown; readonly to: unknown }[];
    };
    readonly governance: {
      readonly approversAdded: readonly string[];
      readonly approversRemoved: readonly string[];
      readonly required?: { readonly from: number; readonly to: number };
      readonly delay?: { readonly from: string; readonly to: string };
    };
    readonly liftedFreezes?: { readonly from: number; readonly to: number };
    readonly apiKeys?: EntriesDiff;
    readonly webhooks?: EntriesDiff;
  };
  readonly state: GovernedState;
  /** The PolicyChange to sign to approve it. */
  readonly typedData: TypedDataToSignWith;
  /** The Decision `reject` to sign to reject it. */
  readonly rejectTypedData: TypedDataToSignWith;
}

export interface ProposalPage {
  readonly count: number;
  readonly page: Proposal[];
}

export interface FreezeResult {
  readonly vault: string;
  readonly frozen: true;
  /** Freezes so far, this one included. */
  readonly freezes: number;
}

export type { TypedDataToSignWith, TypedDataSigner, EthersTypedDataSigner, ViemTypedDataSigner } from './typed-data-signer.js';

/** The admin API (docs/operators.md): a vault as an operator lists it. */
export interface AdminVault {
  readonly id: string;
  readonly account: string;
  readonly name: string;
  readonly created: string;
}

/** An API key as an operator reads it: never the key, nor its hash. */
export interface AdminApiKey {
  readonly id: string;
  readonly vault: string;
  readonly label: string | null;
  readonly roles: readonly ('admin' | 'signer' | 'reader' | 'approver')[];
  /** null: from anywhere. */
  readonly allowCidrs: readonly string[] | null;
  readonly group: string | null;
  readonly approverAddress: string | null;
  readonly created: string;
  readonly revoked: string | null;
  readonly expires: string | null;
  readonly replacedBy: string | null;
  readonly overlapEnds: string | null;
  readonly replaces: string | null;
  readonly firstUsed: string | null;
}

/** What a new key may do and how long (every field optional: the server's defaults). */
export interface ApiKeyOptions {
  readonly roles?: readonly ('admin' | 'signer' | 'reader' | 'approver')[];
  readonly allowSignerApprover?: boolean;
  readonly allowCidrs?: readonly string[];
  readonly group?: string;
  readonly approverAddress?: string;
  readonly label?: string;
  /** A duration (`30d`) or an ISO 8601 time with a zone. */
  readonly expires?: string;
}

/** A governed vault's change: the proposal its approvers sign. */
export interface MadeProposal {
  readonly id: string;
  readonly documentHash: string;
}

export interface AdminCreatedApiKey extends AdminApiKey {
  /** The key itself, shown only in this answer. */
  readonly apiKey: string;
  readonly proposal?: MadeProposal;
  readonly warnings?: readonly string[];
}

export interface AdminRotatedApiKey extends AdminApiKey {
  /** The new key, shown only in this answer. */
  readonly apiKey: string;
}

/** A key after `setApiKeyRoles`: on a governed vault `roles` are the proposed ones, in force with the `proposal`. */
export interface AdminApiKeyRoles extends AdminApiKey {
  /** What it held before (on a governed vault: as its signed state lists them). */
  readonly previousRoles: readonly ('admin' | 'signer' | 'reader' | 'approver')[];
  readonly proposal?: MadeProposal;
}

export interface AdminRevokedApiKey {
  readonly id: string;
  readonly revoked: true;
  readonly proposal?: MadeProposal;
}

export interface AdminPolicy {
  readonly vault: string;
  /** The document in force (null: none); absent when a proposal was made instead. */
  readonly policy?: Record<string, unknown> | null;
  readonly proposal?: MadeProposal;
}

/** An approver enrolled with a passkey (`wallet-vault approvers list`); `id` is its API key's. */
export interface AdminApprover {
  readonly id: string;
  readonly name: string;
  readonly vault: string;
  readonly vaultName: string;
  readonly group: string | null;
  readonly created: string;
  readonly revoked: string | null;
  readonly credential: string;
  /** On a governed vault: whether the signed state lists its passkey yet. */
  readonly enrolment?: { readonly status: 'in-force' | 'waiting-for-quorum'; readonly proposal: string | null };
}

export interface AdminInvite {
  /** The one-time enrolment URL: shown only in this answer. */
  readonly url: string;
  readonly expires: string;
  readonly governed: boolean;
}

export interface AdminWebhook {
  readonly id: string;
  readonly vault: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly created: string;
  readonly deliveredSeq: number;
  readonly attempts: number;
  readonly nextAttempt: string | null;
  readonly firstFailure: string | null;
  readonly lastError: string | null;
  readonly proposal?: MadeProposal;
}

export interface AdminWebhookRemoved {
  readonly vault: string;
  readonly id: string;
  /** false: on a governed vault, `proposal` removes it once signed. */
  readonly removed: boolean;
  readonly proposal?: MadeProposal;
}

export interface AdminWebhookReplay extends AdminWebhook {
  readonly fromSeq: number;
  readonly previousSeq: number;
}

/** `governance set`: a genesis (with the pin to configure) on a vault not yet governed, else a proposal. */
export interface AdminGovernanceSet {
  readonly vault: string;
  readonly genesis?: string;
  readonly pin?: string;
  readonly proposal?: MadeProposal;
  readonly warnings: readonly string[];
}

export interface AdminUnfreeze {
  readonly vault: string;
  /** Lifted at once: a vault that is not governed. */
  readonly lifted?: number;
  /** A governed vault: the proposal lifting the freezes. */
  readonly proposal?: MadeProposal;
}
