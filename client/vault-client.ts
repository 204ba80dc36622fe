import type {
  AbiFunction,
  AuthorizationToSign,
  SignedAuthorization,
  Approval,
  ApprovalPage,
  ApprovalStatus,
  FreezeResult,
  Governance,
  MessageToSign,
  PolicyKind,
  PolicyVerdict,
  Proposal,
  ProposalPage,
  SignatureResult,
  SignedTransaction,
  SignRequest,
  SignOutcome,
  SignResult,
  SignedArgs,
  Hex,
  StandardOutcome,
  Submission,
  TransactionToSign,
  TypedDataToSign,
  VaultStatus,
  Wallet,
  WalletPage,
} from './types.js';
import { signDecision, type DecisionSigner } from './signed-votes.js';
import { typedArgs } from './signed-args.js';
import { decisionTypedData, policyChangeTypedData } from '../src/domain/signed-decisions.js';
import { signDecisionTypedData, type TypedDataSigner } from './typed-data-signer.js';
import { ApprovalPendingError, VaultError } from './vault-error.js';
import { sendCall, withoutTrailingSlashes, type Call, type Transport } from './http-call.js';

/*
 * A typed client for the wallet-vault HTTP API. It imports nothing but its own files and uses only what
 * Node 20+, browsers and workers share (fetch, AbortSignal, Web Crypto, TextEncoder), so it can go into
 * a browser bundle or a worker as well as a Node service.
 */

export interface VaultClientOptions {
  /** Where the server is, e.g. `https://vault.example.com` (a path prefix is kept). */
  readonly baseUrl: string;
  readonly vaultId: string;
  /** An API key of that vault (`wallet-vault api-keys create`). */
  readonly apiKey: string;
  /** The server's `VAULT_AUTH_SECRET_KEY`, when it has one: Sign then carries `X-Vault-Auth-Signature`. */
  readonly authSecret?: string;
  /** Per attempt, from sending to the whole answer read; default 30 000. */
  readonly timeoutMs?: number;
  /** Attempts after the first, for the requests that are safe to repeat (see docs/client.md); default 2. */
  readonly retries?: number;
  /** Wait before the first retry, doubled for each next one; default 250. */
  readonly retryDelayMs?: number;
  /** A fetch of your own (instrumented, proxied, mocked); default globalThis.fetch. */
  readonly fetch?: typeof globalThis.fetch;
}

/** How a vote is cast: signed by the key's approver address, or unsigned (a key without one). */
export interface VoteOptions {
  readonly signer?: DecisionSigner;
}

/** How an approver votes on a proposal: with the key that signs its decisions; optionally bound to the document hash they reviewed. */
export interface ProposalVoteOptions {
  /** An ethers Signer, a viem account or a viem wallet client: the approver's own key (never the API key). */
  readonly signer: TypedDataSigner;
  /** The `documentHash` you reviewed: the vote is refused here, unsent, when the proposal is another document. */
  readonly documentHash?: string;
}

/** A governed vault's proposals (docs/governance.md): read with any reading key, voted with an approver key and its signer. */
export interface VaultProposals {
  list(): Promise<ProposalPage>;
  get(id: string): Promise<Proposal>;
  /** Signs the proposal's PolicyChange with `signer` and sends it; `applied` when it completed the quorum with no delay. */
  approve(id: string, options: ProposalVoteOptions): Promise<Proposal>;
  /** Signs the proposal's Decision `reject` with `signer` and sends it: one reject closes it. */
  reject(id: string, options: ProposalVoteOptions): Promise<Proposal>;
}

const AUTH_SECRET_MIN = 32;
const WALLET_PAGE_MAX = 1000;

export class VaultClient {
  private readonly base: string;
  private readonly vaultId: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly fetch: typeof globalThis.fetch;
  private readonly transport: Transport;
  /** A governed vault's proposals: `list()`, `get(id)`, `approve(id, { signer })`, `reject(id, { signer })`. */
  readonly proposals: VaultProposals;

  constructor(options: VaultClientOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('VaultClient: options { baseUrl, vaultId, apiKey } are required');
    const { baseUrl, vaultId, apiKey, authSecret } = options;
    if (typeof baseUrl !== 'string' || baseUrl === '') throw new TypeError('VaultClient: baseUrl is required (e.g. "https://vault.example.com")');
    let parsed: URL;
    try {
      parsed = new URL(baseUrl);
    } catch {
      throw new TypeError(`VaultClient: baseUrl ${JSON.stringify(baseUrl)} is not an absolute URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError('VaultClient: baseUrl must be an http(s) URL');
    if (typeof vaultId !== 'string' || vaultId === '') throw new TypeError('VaultClient: vaultId is required');
    if (typeof apiKey !== 'string' || apiKey === '') throw new TypeError('VaultClient: apiKey is required');
    if (authSecret !== undefined && (typeof authSecret !== 'string' || authSecret.length < AUTH_SECRET_MIN)) {
      throw new TypeError(`VaultClient: authSecret must be at least ${AUTH_SECRET_MIN} characters (the server refuses shorter secrets)`);
    }
    const positive = (name: string, value: number | undefined, fallback: number, min: number) => {
      if (value === undefined) return fallback;
      if (!Number.isSafeInteger(value) || value < min) throw new TypeError(`VaultClient: ${name} must be an integer of at least ${min}`);
      return value;
    };
    this.timeoutMs = positive('timeoutMs', options.timeoutMs, 30_000, 1);
    this.retries = positive('retries', options.retries, 2, 0);
    this.retryDelayMs = positive('retryDelayMs', options.retryDelayMs, 250, 0);
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('VaultClient: no fetch available; pass options.fetch');
    this.fetch = fetchImpl;
    this.base = `${withoutTrailingSlashes(baseUrl)}/api/v1/vaults/${encodeURIComponent(vaultId)}`;
    this.vaultId = vaultId;
    this.transport = { base: this.base, bearer: apiKey, authSecret, timeoutMs: this.timeoutMs, retries: this.retries, retryDelayMs: this.retryDelayMs, fetch: this.fetch };
    this.proposals = Object.freeze({
      list: () => this.call<ProposalPage>({ method: 'GET', path: '/proposals' }),
      get: (id: string) => this.call<Proposal>({ method: 'GET', path: `/proposals/${pathId(id, 'proposal')}` }),
      approve: (id: string, o: ProposalVoteOptions) => this.voteOnProposal(id, 'approve', o),
      reject: (id: string, o: ProposalVoteOptions) => this.voteOnProposal(id, 'reject', o),
    });
  }

  /** The vault's governance: the state in force, its hash and pin, whether it is frozen, and why it does not verify when it does not. */
  governance(): Promise<Governance> {
    return this.call<Governance>({ method: 'GET', path: '/governance' });
  }

  /**
   * Freezes the vault (admin key, no quorum): every signature refused (`VAULT_FROZEN`) on every instance
   * from the next one on. Retried on no answer and on 503, as freezing twice is as frozen as once.
   */
  freeze(reason?: string): Promise<FreezeResult> {
    if (reason !== undefined && typeof reason !== 'string') throw new TypeError('freeze: reason must be a string');
    return this.call<FreezeResult>({ method: 'POST', path: '/freeze', body: reason === undefined ? {} : { reason }, retryOn: (s) => s === 0 || s === 503 });
  }

  /**
   * Creates a wallet. With `idempotencyKey` a create whose answer was lost (network failure, timeout,
   * 502/503) is retried, and the server answers the first wallet rather than making a second one.
   */
  createWallet(name: string, options: { idempotencyKey?: string } = {}): Promise<Wallet> {
    requireName(name);
    const key = options.idempotencyKey;
    if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 255)) {
      throw new TypeError('createWallet: idempotencyKey must be a string of 1 to 255 characters');
    }
    return this.call<Wallet>({
      method: 'POST',
      path: '/wallets',
      body: { name },
      ...(key === undefined ? {} : { headers: { 'Idempotency-Key': key }, retryOn: (s: number) => s === 0 || s === 408 || s === 502 || s === 503 }),
    });
  }

  /** One page, ordered by `created` then `id`; `count` in the answer is the vault's total. */
  listWallets(options: { offset?: number; count?: number } = {}): Promise<WalletPage> {
    const query = new URLSearchParams();
    for (const name of ['offset', 'count'] as const) {
      const value = options[name];
      if (value === undefined) continue;
      if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`listWallets: ${name} must be a non-negative integer`);
      query.set(name, String(value));
    }
    const q = query.toString();
    return this.call<WalletPage>({ method: 'GET', path: `/wallets${q ? `?${q}` : ''}` });
  }

  /** Every wallet of the vault, page by page (`pageSize` up to 1000, default 100). */
  async *wallets(options: { pageSize?: number } = {}): AsyncGenerator<Wallet, void, undefined> {
    const count = options.pageSize ?? 100;
    if (!Number.isSafeInteger(count) || count < 1 || count > WALLET_PAGE_MAX) throw new TypeError(`wallets: pageSize must be 1 to ${WALLET_PAGE_MAX}`);
    for (let offset = 0; ; ) {
      const { page, count: total } = await this.listWallets({ offset, count });
      yield* page;
      offset += page.length;
      // A short page, or the total reached: no need to ask for an empty one.
      if (page.length < count || offset >= total) return;
    }
  }

  getWallet(address: string): Promise<Wallet> {
    return this.call<Wallet>({ method: 'GET', path: `/wallets/${pathAddress(address)}` });
  }

  renameWallet(address: string, name: string): Promise<Wallet> {
    requireName(name);
    return this.call<Wallet>({ method: 'PUT', path: `/wallets/${pathAddress(address)}`, body: { name } });
  }

  /** Starts the 30-day expiry (unchanged when already expiring). */
  expireWallet(address: string): Promise<Wallet> {
    return this.call<Wallet>({ method: 'DELETE', path: `/wallets/${pathAddress(address)}` });
  }

  unexpireWallet(address: string): Promise<Wallet> {
    return this.call<Wallet>({ method: 'POST', path: `/wallets/${pathAddress(address)}` });
  }

  /**
   * Signs a contract call. `args` of the answer go straight into the contract call (viem
   * `writeContract({ args })`, ethers `contract.fn(...args)`). Retried only when answered 502 or 503
   * (nothing was signed), each attempt with a fresh X-Vault-Auth-Signature; never after a lost answer,
   * which may have carried a valid signature.
   */
  async sign<const F extends AbiFunction>(request: SignRequest<F>): Promise<SignResult<F>> {
    requireSignRequest('sign', request);
    const result = await this.call<{ submissionHash: Hex; args: unknown[] }>({
      method: 'POST',
      path: '/sign',
      body: request,
      signed: true,
      retryOn: (s) => s === 502 || s === 503,
      // A request an approval rule holds is answered 202: no signature to resolve to.
      accepted: (data, requestId) => {
        throw new ApprovalPendingError(data.approval, requestId);
      },
    });
    // Integers in the types the ABI item gives them (SignedArgs), as viem's writeContract takes them.
    return { submissionHash: result.submissionHash, args: typedArgs(request.abi, result.args) as SignedArgs<F> };
  }

  /**
   * Sign, answering either the signature or the approval that holds it (`'approval' in outcome`). With
   * `idempotencyKey`, asking again with the same key and request answers the held request's state:
   * the approval while pending, the Sign result once approved, a VaultError `APPROVAL_REJECTED` or
   * `APPROVAL_EXPIRED` after its end. Retried as `sign` is (502/503 only): a sign no rule holds is
   * signed anew each time, so a lost answer is never retried (it may have carried a valid signature).
   */
  async requestSign<const F extends AbiFunction>(request: SignRequest<F>, options: { idempotencyKey?: string } = {}): Promise<SignOutcome<F>> {
    requireSignRequest('requestSign', request);
    const key = options.idempotencyKey;
    if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 255)) {
      throw new TypeError('requestSign: idempotencyKey must be a string of 1 to 255 characters');
    }
    const outcome = await this.call<{ submissionHash: Hex; args: unknown[] } | { approval: Approval }>({
      method: 'POST',
      path: '/sign',
      body: request,
      signed: true,
      retryOn: (s) => s === 502 || s === 503,
      accepted: (data) => data,
      ...(key === undefined ? {} : { headers: { 'Idempotency-Key': key } }),
    });
    if ('approval' in outcome) return outcome;
    return { submissionHash: outcome.submissionHash, args: typedArgs(request.abi, outcome.args) as SignedArgs<F> };
  }

  /** The vault's approvals, oldest first; `status: 'pending'` for those awaiting votes. */
  listApprovals(options: { status?: ApprovalStatus; offset?: number; count?: number } = {}): Promise<ApprovalPage> {
    const query = new URLSearchParams();
    for (const name of ['offset', 'count'] as const) {
      const value = options[name];
      if (value === undefined) continue;
      if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`listApprovals: ${name} must be a non-negative integer`);
      query.set(name, String(value));
    }
    if (options.status !== undefined) query.set('status', options.status);
    const q = query.toString();
    return this.call<ApprovalPage>({ method: 'GET', path: `/approvals${q ? `?${q}` : ''}` });
  }

  /** One approval: what is asked, the votes, and once approved the Sign result (`result`). */
  getApproval(id: string): Promise<Approval> {
    return this.call<Approval>({ method: 'GET', path: `/approvals/${pathId(id)}` });
  }

  /**
   * Approves a held sign with this client's approver key. The approve that completes the quorum makes the
   * signature: the answer is then `approved` with its `result`. Never retried: a vote counts once.
   * `signer`: the key's approver address (an ethers Signer, a viem account or wallet client) signs the
   * EIP-712 Decision, built here from the approval's requestHash (read first); required of a key with an
   * approver address (else 403 APPROVAL_SIGNATURE_INVALID), left out for a key without one.
   */
  approve(id: string, options: VoteOptions = {}): Promise<Approval> {
    return this.vote(id, 'approve', options);
  }

  /** Rejects a held sign: it is never signed. `signer` as for `approve` (it signs the Decision `reject`). */
  reject(id: string, options: VoteOptions = {}): Promise<Approval> {
    return this.vote(id, 'reject', options);
  }

  private async vote(id: string, decision: 'approve' | 'reject', options: VoteOptions): Promise<Approval> {
    const path = `/approvals/${pathId(id)}/${decision}`;
    if (options.signer === undefined) return this.call<Approval>({ method: 'POST', path });
    const { requestHash } = await this.getApproval(id);
    const signature = await signDecision(options.signer, this.vaultId, id, requestHash, decision);
    return this.call<Approval>({ method: 'POST', path, body: { signature } });
  }

  /**
   * Signs an EIP-191 personal message with a wallet of the vault: text (its UTF-8 bytes) or
   * `{ raw: "0x…" }` (bytes as they are). The vault's policy must allow messages. A message a hold rule
   * holds (202) rejects with ApprovalPendingError carrying the approval, as `sign` does (see
   * `requestSignMessage`). Retried as Sign is (502/503 only, a fresh X-Vault-Auth-Signature each time).
   */
  signMessage(address: string, message: MessageToSign): Promise<SignatureResult> {
    return this.signWith<SignatureResult>('signMessage', address, 'sign-message', messageBody(message, 'signMessage'));
  }

  /**
   * Signs EIP-712 typed data (`{ domain, types, primaryType, message }`, as viem's signTypedData takes
   * them; bigints are sent as decimal strings). Held (202): ApprovalPendingError, as `sign`.
   */
  signTypedData(address: string, typedData: TypedDataToSign): Promise<SignatureResult> {
    return this.signWith<SignatureResult>('signTypedData', address, 'sign-typed-data', objectBody(typedData, 'signTypedData', 'typedData'));
  }

  /**
   * Signs a legacy, eip2930 or eip1559 transaction (as viem serialises it; bigints are sent as decimal
   * strings); answers it serialised for `eth_sendRawTransaction`, with its hash. Held (202):
   * ApprovalPendingError, as `sign`.
   */
  signTransaction(address: string, transaction: TransactionToSign): Promise<SignedTransaction> {
    return this.signWith<SignedTransaction>('signTransaction', address, 'sign-transaction', objectBody(transaction, 'signTransaction', 'transaction'));
  }

  /**
   * Signs an EIP-7702 authorization `{ chainId, address, nonce }`: the wallet's account delegated to the
   * contract `address` (docs/standard-signing.md#eip-7702-authorizations). The vault's policy must allow
   * it with a rule of kind `authorization` naming the delegate. Answers the signature and its `yParity`,
   * `r`, `s` for a type-4 transaction's `authorizationList`. Held (202): ApprovalPendingError, as `sign`.
   */
  signAuthorization(address: string, authorization: AuthorizationToSign): Promise<SignedAuthorization> {
    return this.signWith<SignedAuthorization>('signAuthorization', address, 'sign-authorization', objectBody(authorization, 'signAuthorization', 'authorization'));
  }

  /** `signAuthorization`, answering the signed authorization or the approval that holds it; `idempotencyKey` as `requestSignMessage`. */
  requestSignAuthorization(address: string, authorization: AuthorizationToSign, options: { idempotencyKey?: string } = {}): Promise<StandardOutcome<SignedAuthorization>> {
    return this.requestWith('requestSignAuthorization', address, 'sign-authorization', objectBody(authorization, 'requestSignAuthorization', 'authorization'), options);
  }

  /**
   * `signMessage`, answering either the signature or the approval that holds it (`'approval' in
   * outcome`), as `requestSign` does for Sign. With `idempotencyKey`, asking again with the same key and
   * message answers the held request's state: the approval while pending, `{ signature }` once approved, a
   * VaultError `APPROVAL_REJECTED` or `APPROVAL_EXPIRED` after its end.
   */
  requestSignMessage(address: string, message: MessageToSign, options: { idempotencyKey?: string } = {}): Promise<StandardOutcome<SignatureResult>> {
    return this.requestWith('requestSignMessage', address, 'sign-message', messageBody(message, 'requestSignMessage'), options);
  }

  /** `signTypedData`, answering the signature or the approval that holds it; `idempotencyKey` as `requestSignMessage`. */
  requestSignTypedData(address: string, typedData: TypedDataToSign, options: { idempotencyKey?: string } = {}): Promise<StandardOutcome<SignatureResult>> {
    return this.requestWith('requestSignTypedData', address, 'sign-typed-data', objectBody(typedData, 'requestSignTypedData', 'typedData'), options);
  }

  /**
   * `signTransaction`, answering the signed transaction or the approval that holds it; `idempotencyKey`
   * as `requestSignMessage`. A held transaction is signed when its quorum approves, not sent: send the
   * approval's `result.serialized` yourself.
   */
  requestSignTransaction(address: string, transaction: TransactionToSign, options: { idempotencyKey?: string } = {}): Promise<StandardOutcome<SignedTransaction>> {
    return this.requestWith('requestSignTransaction', address, 'sign-transaction', objectBody(transaction, 'requestSignTransaction', 'transaction'), options);
  }

  private signWith<T>(method: string, address: string, operation: string, body: unknown): Promise<T> {
    const path = `/wallets/${pathAddress(address)}/${operation}`;
    return this.call<T>({
      method: 'POST',
      path,
      body,
      signed: true,
      retryOn: (s) => s === 502 || s === 503,
      // A request a hold rule holds is answered 202: no signature to resolve to.
      accepted: (data, requestId) => {
        throw new ApprovalPendingError(data.approval, requestId, method);
      },
    });
  }

  private requestWith<T>(method: string, address: string, operation: string, body: unknown, options: { idempotencyKey?: string }): Promise<T> {
    const key = options.idempotencyKey;
    if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 255)) {
      throw new TypeError(`${method}: idempotencyKey must be a string of 1 to 255 characters`);
    }
    return this.call<T>({
      method: 'POST',
      path: `/wallets/${pathAddress(address)}/${operation}`,
      body,
      signed: true,
      retryOn: (s) => s === 502 || s === 503,
      accepted: (data) => data,
      ...(key === undefined ? {} : { headers: { 'Idempotency-Key': key } }),
    });
  }

  /**
   * What the vault's policy would decide for a request (the dry run; docs/policy.md#dry-run): `request` is
   * the body of that kind's route, `wallet` the signing wallet (every kind but `call`). Nothing is signed,
   * recorded or counted; a deny is an answer here, not an error.
   */
  evaluatePolicy(kind: PolicyKind, request: unknown, wallet?: string): Promise<PolicyVerdict> {
    if (typeof request !== 'object' || request === null) throw new TypeError('evaluatePolicy: request must be an object');
    const body = wallet === undefined ? { kind, request } : { kind, wallet, request };
    return this.call<PolicyVerdict>({ method: 'POST', path: '/policy/evaluate', body: JSON.parse(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) });
  }

  /** Records the transaction that carried a signature; the same pair again is accepted unchanged. */
  submit(submissionHash: string, transactionHash: string): Promise<Submission> {
    return this.call<Submission>({ method: 'POST', path: '/submissions', body: { submissionHash, transactionHash } });
  }

  getSubmission(submissionHash: string): Promise<Submission> {
    if (typeof submissionHash !== 'string' || submissionHash === '') throw new TypeError('getSubmission: submissionHash must be a non-empty string');
    return this.call<Submission>({ method: 'GET', path: `/submissions/${encodeURIComponent(submissionHash)}` });
  }

  status(): Promise<VaultStatus> {
    return this.call<VaultStatus>({ method: 'GET', path: '/status', bare: true });
  }

  /**
   * A vote on a proposal: the typed data is built here from the proposal's id and document hash (not
   * taken from the answer), signed by the approver's signer, and sent once (never retried: a vote counts
   * once, and a second is 409).
   */
  private async voteOnProposal(id: string, decision: 'approve' | 'reject', options: ProposalVoteOptions): Promise<Proposal> {
    if (typeof options !== 'object' || options === null || options.signer === undefined) throw new TypeError(`proposals.${decision}: options { signer } are required`);
    const proposal = await this.proposals.get(id);
    const expected = options.documentHash;
    if (expected !== undefined && (typeof expected !== 'string' || expected.toLowerCase() !== proposal.documentHash.toLowerCase())) {
      throw new Error(`proposals.${decision}: proposal ${id} is document ${proposal.documentHash}, not the ${String(expected)} you reviewed; nothing was signed`);
    }
    // Approve signs the PolicyChange; reject a Decision `reject` over the document: another message, never the approve's twin.
    const typed = decision === 'approve' ? policyChangeTypedData(this.vaultId, proposal.id, proposal.documentHash) : decisionTypedData(this.vaultId, proposal.id, proposal.documentHash, 'reject');
    const signature = await signDecisionTypedData(options.signer, typed);
    return this.call<Proposal>({ method: 'POST', path: `/proposals/${pathId(id, 'proposal')}/${decision}`, body: { signature } });
  }

  private call<T>(call: Call): Promise<T> {
    return sendCall<T>(this.transport, call);
  }
}

/** A sign-message body, checked before it is sent. */
function messageBody(message: MessageToSign, method: string): { message: MessageToSign } {
  if (typeof message !== 'string' && (typeof message !== 'object' || message === null || typeof message.raw !== 'string')) {
    throw new TypeError(`${method}: message must be a string or { raw: "0x…" }`);
  }
  return { message };
}

/** Typed data or a transaction as a body, checked to be an object before it is sent. */
function objectBody(value: unknown, method: string, name: string): object {
  if (typeof value !== 'object' || value === null) throw new TypeError(`${method}: ${name} must be an object`);
  return value;
}

function requireName(name: unknown): void {
  if (typeof name !== 'string') throw new TypeError(`wallet name must be a string (got ${name === null ? 'null' : typeof name})`);
}

function requireSignRequest(method: string, request: unknown): void {
  if (typeof request !== 'object' || request === null) throw new TypeError(`${method}: request must be an object`);
  if (!Array.isArray((request as { args?: unknown }).args)) throw new TypeError(`${method}: request.args must be an array`);
}

function pathId(id: unknown, what = 'approval'): string {
  if (typeof id !== 'string' || id === '') throw new TypeError(`${what} id must be a non-empty string`);
  return encodeURIComponent(id);
}

function pathAddress(address: unknown): string {
  if (typeof address !== 'string' || address === '') throw new TypeError('wallet address must be a non-empty string');
  return encodeURIComponent(address);
}
