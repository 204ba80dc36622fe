import type { ErrorCode } from '../../../src/domain/errors.js';

/**
 * Examples for the OpenAPI document, copied from the answers of a real server (a local-chain sign with
 * the test fixtures). A test validates each against its schema, so they cannot drift from the contract.
 */
const EXAMPLES_ = {
  wallet: {
    id: "01a20a06-2a74-73d9-a0cb-5bf3c89cd44a",
    account: "acme",
    vault: "01a20a06-2a5c-723c-9c70-0b4b1886637b",
    name: "treasury",
    address: "0x20cfBC94976e68462baBF91be69b2652bFfdFd93",
    created: "2026-11-23T20:08:25.985Z",
    updated: "2026-11-23T20:08:25.985Z"
  },
  expiringWallet: {
    id: "01a20a06-2aed-729d-abd9-6d26b37d52af",
    account: "acme",
    vault: "01a20a06-2a5c-723c-9c70-0b4b1886637b",
    name: "old payroll",
    address: "0xc7c4ae63cf43332B7b9CA47e1E52b35eb275d2b3",
    created: "2026-11-23T20:08:26.100Z",
    updated: "2026-11-23T20:08:26.103Z",
    expires: "2026-12-23T20:08:26.103Z"
  },
  walletPage: { count: 1, page: [] as unknown[] },
  signRequest: {
    chain: "local",
    contract: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    sender: "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
    uniq: "0xabababababababababababababababababababababababababababababababab",
    signer: "0x20cfBC94976e68462baBF91be69b2652bFfdFd93",
    abi: {
      type: "function",
      name: "mint",
      inputs: [
        {
          name: "to",
          type: "address"
        },
        {
          name: "amount",
          type: "uint256"
        },
        {
          name: "sig",
          type: "tuple",
          components: [
            {
              name: "nonce",
              type: "bytes32"
            },
            {
              name: "r",
              type: "bytes32"
            },
            {
              name: "s",
              type: "bytes32"
            },
            {
              name: "v",
              type: "uint8"
            }
          ]
        }
      ]
    },
    args: [
      "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
      "1000"
    ]
  },
  signResult: {
    submissionHash: "0x04108bdb8212ba3b25b313a07a23cdaab94a8408cc5dc2ed2e225406580b672e",
    args: [
      "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
      "1000",
      {
        nonce: "0xdcd7a0ee8856b7301f91ee4d665c9a629a4bba413ae649972e29f9a8ff277834",
        r: "0xba46eed7c2478b441b93fd2cc059b0c58a7f5635c7b99d8ea3e23102b96e01ea",
        s: "0x3f4b3820922e2e6d8de262277dd055b7bd940b9722a174af21a6fa2d27f882b7",
        v: 28
      }
    ]
  },
  submission: {
    submissionHash: "0x04108bdb8212ba3b25b313a07a23cdaab94a8408cc5dc2ed2e225406580b672e",
    vault: "01a20a06-2a5c-723c-9c70-0b4b1886637b",
    wallet: "0x20cfBC94976e68462baBF91be69b2652bFfdFd93",
    chain: "local",
    contract: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    sender: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    selector: "0x95934488",
    signed: "2026-11-23T20:08:26.058Z",
    transactionHash: "0xc4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4",
    submitted: "2026-11-23T20:08:26.079Z"
  },
  status: {
    timestamp: "2026-11-23T20:08:26.086Z",
    online: true,
    vaultKeys: 1,
    wallets: 1,
    version: "test"
  }
};

/**
 * Standard signing, by one wallet (`standardSigner`): the signatures and the transaction were computed
 * with viem by that wallet's key; test/http/openapi.test.ts recovers the signer of each.
 */
const STANDARD_SIGNER = '0x5Af083D14925897D13895153E514Da5B53Fc9344';
const STANDARD_EXAMPLES = {
  standardSigner: STANDARD_SIGNER,
  signMessageRequest: { message: 'Sign in to example.org at 2026-11-23T20:08:26Z' },
  signMessageResult: {
    signature: '0x4605684e582cf52ea5b792627ca3f9eae06561f00ae6c2715329caea2ea1c3ab583fbba634e2e3b1feafa2b623e3cca698cc57ec0cc514e133a69ca6fd6ea05b1c',
  },
  signTypedDataRequest: {
    domain: { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
    types: {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    message: { owner: STANDARD_SIGNER, spender: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', value: '1000000', nonce: '0', deadline: '1798761600' },
  },
  signTypedDataResult: {
    signature: '0x2b4eae66cd9eff5a0844967825161ee825f854203b62c2a466aa94d6ad1d25173c50baa498ea1ece8603f85653361cd6ebe8f938b63fa038b28172d3b30726321b',
  },
  signTransactionRequest: {
    type: 'eip1559',
    chainId: 1,
    nonce: 7,
    to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    value: '10000000000000000',
    gas: '21000',
    maxFeePerGas: '30000000000',
    maxPriorityFeePerGas: '1000000000',
  },
  /** EIP-7702, signed by anvil's first account (0xf39F…2266; test/http/openapi.test.ts recovers it): the delegate is Ithaca's Porto account. */
  authorizationSigner: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  signAuthorizationRequest: { chainId: 1, address: '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B', nonce: 12 },
  signAuthorizationResult: {
    signature: '0x2fc3a82d2ee7fde053247d240369bd1fef44b751ad5be897eccde60d891434f04409b7c5c779e6bf256dce1a8029777ee448f03091a8bd038f9323c4d03148111b',
    yParity: 0,
    r: '0x2fc3a82d2ee7fde053247d240369bd1fef44b751ad5be897eccde60d891434f0',
    s: '0x4409b7c5c779e6bf256dce1a8029777ee448f03091a8bd038f9323c4d0314811',
  },
  signTransactionResult: {
    serialized:
      '0x02f8720107843b9aca008506fc23ac00825208943c44cdddb6a900fa2b585dd299e03d12fa4293bc872386f26fc1000080c080a031b07bc6b5a59858b8c634c15c71d708cbfb37c2f834a31cd9d12eec6ed8c66ea04af46828d56f5b977d40274eff40a572ff254513db4b2418e106d6f883e6d2ef',
    hash: '0xd8f23bfd245d92109c7071822137ff84bcb65137d22cef090a04b66c81aebf3f',
  },
};

/** A sign held for a 2-of-3 quorum of the treasury group, after one approval (docs/api.md#approvals-four-eyes). */
const APPROVAL = {
  id: '01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62',
  kind: 'call',
  status: 'pending',
  required: 2,
  approvals: 1,
  approvalCount: 1,
  expires: '2026-06-02T09:30:00.000Z',
  created: '2026-06-01T09:30:00.000Z',
  decided: null,
  rule: 'a1',
  group: 'treasury',
  requester: 'api-key:3f1c9a2b7d4e5f60',
  request: {
    chain: 'local',
    contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    sender: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    uniq: '0xabababababababababababababababababababababababababababababababab',
    signer: '0x20cfBC94976e68462baBF91be69b2652bFfdFd93',
    function: 'mint(address,uint256,(bytes32,bytes32,bytes32,uint8))',
    selector: '0x1c8bd6a6',
    arguments: [
      { name: 'args[0]', type: 'address', value: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
      { name: 'args[1]', type: 'uint256', value: '1000' },
    ],
  },
  // The vote below is a real signature: account 0x70997970C51812dc3A010C7d01b50e0d17dc79C8's Decision to approve this approval.
  requestHash: '0x6c1f7d9a0e2b4c3d5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0',
  votes: [
    {
      by: 'api-key:8a7b6c5d4e3f2a10',
      vote: 'approve',
      at: '2026-06-01T09:41:12.000Z',
      signature: '0x238d02151471b45b5291e81d5243f8837c1a35e0fcd8db6ab45da4ef6a69fccb705e26879be410d7720fdd59df2fddee6f516293bd2e7f04855b5b0a57dea4461b',
    },
  ],
  result: null,
  simulation: null,
  blockedBy: null,
} as const;

/*
 * Governance (docs/governance.md): a 2-of-3 governed vault (delay 1h) whose proposal adds a rule, signed
 * by one approver so far. Hashes and signatures are real: the approvers' keys are 0x11…11, 0x22…22 and
 * 0x33…33 (test keys), and test/http/openapi.test.ts recovers each signer.
 */
const GOVERNANCE_APPROVERS = ["0x1563915e194D8CfBA1943570603F7606A3115508", "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A", "0x5CbDd86a2FA8Dc4bDdd8a8f69dBa48572EeC07FB"];
const GENESIS_HASH = '0xbc956787018f1450f80c158c02cf30f08a0799a76a656793fb98a5fcd413122a';
const PROPOSAL_DOCUMENT_HASH = '0xfa7895d4164654919da771eea2e4c1c620ed417cb9961ba2333b2d0db5aca5ee';
/** The PolicyChange of the proposal, signed by 0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A. */
const PROPOSAL_SIGNATURE = '0xe79098fe37ee99d4c3fcd2194c73feca63fe21ae0da4a678bb9cdd21017476c051724a7739e6bdf3b4357c815acbd90758433da707b0fed1ff35a8fa392ca87a1b';
/** The Decision "reject" of the proposal, signed by 0x5CbDd86a2FA8Dc4bDdd8a8f69dBa48572EeC07FB. */
const PROPOSAL_REJECT_SIGNATURE = '0x8904508d6f49fd1682538b664455e6a359907e496ac823c0ac94f4557942a2b86186920038fe112236acc8f666a56c8d41ff8f3ad98718668272ba759588d5af1b';
const GOVERNED_STATE = { version: 1, vault: '01a20a06-2a5c-723c-9c70-0b4b1886637b', previous: GENESIS_HASH as string | null, policy: {"version": 2, "rules": [{"id": "messages", "effect": "allow", "kinds": ["message"]}], "limits": []}, governance: { required: 2, approvers: GOVERNANCE_APPROVERS, delay: '1h' }, liftedFreezes: 0 };
const PROPOSAL = {
  id: '01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a63',
  vault: '01a20a06-2a5c-723c-9c70-0b4b1886637b',
  documentHash: PROPOSAL_DOCUMENT_HASH,
  previous: GENESIS_HASH,
  status: 'pending',
  creator: 'api-key:3f1c9a2b7d4e5f60',
  created: '2026-06-01T09:30:00.000Z',
  decided: null as string | null,
  approvals: ['0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A'],
  approvalCount: 1,
  required: 2,
  effectiveAt: null,
  rejectedBy: null as string | null,
  diff: { policy: { added: ['rule payouts'], removed: [], changed: [] }, governance: { approversAdded: [], approversRemoved: [] } },
  state: { ...GOVERNED_STATE, previous: GENESIS_HASH, policy: {"version": 2, "rules": [{"id": "messages", "effect": "allow", "kinds": ["message"]}, {"id": "payouts", "effect": "allow", "kinds": ["transaction"], "contracts": ["0x70997970C51812dc3A010C7d01b50e0d17dc79C8"]}], "limits": []} },
  typedData: {
    domain: { name: 'wallet-vault', version: '1' },
    types: { PolicyChange: [{ name: 'vault', type: 'string' }, { name: 'proposal', type: 'string' }, { name: 'document', type: 'bytes32' }] },
    primaryType: 'PolicyChange',
    message: { vault: '01a20a06-2a5c-723c-9c70-0b4b1886637b', proposal: '01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a63', document: PROPOSAL_DOCUMENT_HASH },
  },
  rejectTypedData: {
    domain: { name: 'wallet-vault', version: '1' },
    types: { Decision: [{ name: 'vault', type: 'string' }, { name: 'approval', type: 'string' }, { name: 'request', type: 'bytes32' }, { name: 'decision', type: 'string' }] },
    primaryType: 'Decision',
    message: { vault: '01a20a06-2a5c-723c-9c70-0b4b1886637b', approval: '01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a63', request: PROPOSAL_DOCUMENT_HASH, decision: 'reject' },
  },
};
const GOVERNANCE = {
  vault: '01a20a06-2a5c-723c-9c70-0b4b1886637b',
  governed: true,
  state: { ...GOVERNED_STATE, previous: null },
  hash: GENESIS_HASH,
  genesisHash: GENESIS_HASH,
  pin: `VAULT_GOVERNANCE_PINS=01a20a06-2a5c-723c-9c70-0b4b1886637b:${GENESIS_HASH}`,
  pinned: true,
  frozen: false,
  freezes: 0,
  liftedFreezes: 0,
  problem: null,
};

/** The list page of that first wallet, as the server answered it. */
export const EXAMPLES = {
  ...EXAMPLES_,
  walletPage: { count: 1, page: [EXAMPLES_.wallet] },
  ...STANDARD_EXAMPLES,
  approval: APPROVAL,
  proposal: PROPOSAL,
  proposalSignature: PROPOSAL_SIGNATURE,
  proposalRejectSignature: PROPOSAL_REJECT_SIGNATURE,
  proposalRejecter: '0x5CbDd86a2FA8Dc4bDdd8a8f69dBa48572EeC07FB',
  governance: GOVERNANCE,
  approvalRequested: { approval: { ...APPROVAL, approvals: 0, approvalCount: 0, votes: [] } },
  approvalPage: { count: 1, page: [APPROVAL] },
  approvedApproval: {
    ...APPROVAL,
    status: 'approved',
    approvals: 2,
    approvalCount: 2,
    decided: '2026-06-01T10:02:40.000Z',
    votes: [...APPROVAL.votes, { by: 'api-key:c0ffee1234567890', vote: 'approve', at: '2026-06-01T10:02:40.000Z', signature: null }],
    result: EXAMPLES_.signResult,
  },
  /** A message held by a hold rule (sign-message answered 202), before any vote. */
  messageApprovalRequested: {
    approval: {
      ...APPROVAL,
      id: '01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a64',
      kind: 'message',
      approvals: 0,
      approvalCount: 0,
      group: null,
      request: { wallet: STANDARD_EXAMPLES.standardSigner, message: STANDARD_EXAMPLES.signMessageRequest.message },
      votes: [],
    },
  },
  /** Typed data held by a hold rule (sign-typed-data answered 202), before any vote. */
  typedDataApprovalRequested: {
    approval: {
      ...APPROVAL,
      id: '01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a65',
      kind: 'typed-data',
      approvals: 0,
      approvalCount: 0,
      group: null,
      request: { wallet: STANDARD_EXAMPLES.standardSigner, typedData: STANDARD_EXAMPLES.signTypedDataRequest },
      votes: [],
    },
  },
  /** A transaction held by a hold rule (sign-transaction answered 202), before any vote. */
  transactionApprovalRequested: {
    approval: {
      ...APPROVAL,
      id: '01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a63',
      kind: 'transaction',
      approvals: 0,
      approvalCount: 0,
      group: null,
      request: { wallet: STANDARD_EXAMPLES.standardSigner, transaction: STANDARD_EXAMPLES.signTransactionRequest },
      votes: [],
      // Simulated before it was held (it does not revert), on the chain of its chain id.
      simulation: { chain: 'sepolia', method: 'eth_call' },
    },
  },
  /** An EIP-7702 authorization held by a hold rule (sign-authorization answered 202), before any vote. */
  authorizationApprovalRequested: {
    approval: {
      ...APPROVAL,
      id: '01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a66',
      kind: 'authorization',
      approvals: 0,
      approvalCount: 0,
      group: null,
      request: { wallet: STANDARD_EXAMPLES.authorizationSigner, authorization: STANDARD_EXAMPLES.signAuthorizationRequest },
      votes: [],
    },
  },
};

/**
 * One message per error code, as the server words it (test/http/openapi.test.ts provokes most of them on
 * a real server and compares); where an operation words a code its own way, ERROR_EXAMPLES_BY_OPERATION
 * says so. Typed by ErrorCode: a new code does not compile until it has its example.
 */
export const ERROR_EXAMPLES: Readonly<Record<ErrorCode, string>> = {
  INVALID_ARGUMENT: 'name: must be a string',
  MALFORMED_JSON: 'request body is not valid JSON',
  UNAUTHENTICATED: 'invalid API key for this vault',
  POLICY_DENIED: `policy: no rule of this vault's policy allows this call (rule calls: sender ${EXAMPLES_.submission.sender} is not in its senders)`,
  ROLE_REQUIRED: 'this API key lacks the role "signer" needed here (it holds: reader)',
  FORBIDDEN_NETWORK: 'this API key may not be used from 198.51.100.23',
  WALLET_NOT_FOUND: `wallet ${EXAMPLES_.wallet.address} not found in this vault`,
  VAULT_NOT_FOUND: `vault ${EXAMPLES_.wallet.vault} does not exist`,
  SUBMISSION_NOT_FOUND: `submission ${EXAMPLES_.submission.submissionHash} not found in this vault`,
  ROUTE_NOT_FOUND: 'no route: malformed percent-encoding in path',
  METHOD_NOT_ALLOWED: `method PATCH is not allowed on /api/v1/vaults/${EXAMPLES_.wallet.vault}/wallets (Allow: GET, HEAD, POST)`,
  IDEMPOTENCY_CONFLICT: 'Idempotency-Key: already used with a different request body in the last 24 hours; use a new key for a new request',
  CONFLICT: 'the wallet is being changed concurrently; retry the request',
  PAYLOAD_TOO_LARGE: 'request body is larger than the limit of 1048576 bytes',
  HEADERS_TOO_LARGE: 'request headers are larger than the limit of 16384 bytes',
  REQUEST_TIMEOUT: 'request was not received in time',
  RATE_LIMITED: 'rate limit exceeded for this API key; retry after 12 s',
  SIGN_LIMIT_REACHED: `limit l1: at most 100 signs per 1h for wallet ${EXAMPLES_.wallet.address} reached; retry after 754 s`,
  APPROVAL_NOT_FOUND: 'approval 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62 not found in this vault',
  APPROVAL_REJECTED: 'approval 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62: the request was rejected; it is never signed',
  APPROVAL_EXPIRED: 'approval 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62: the request expired before its quorum; it is never signed',
  APPROVAL_SELF_VOTE: 'approval 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62: the requesting key can never vote on its own request',
  APPROVAL_SIGNATURE_INVALID: "approval 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62: the signature is not this key's approver address's EIP-712 Decision to approve this approval",
  APPROVER_NOT_IN_GROUP: 'approval 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62: only approver keys of group treasury vote on it (this key is of no group)',
  APPROVAL_ALREADY_VOTED: 'approval 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62: this key has already voted (approve)',
  APPROVAL_CLOSED: 'approval 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62: already approved; it takes no more votes',
  CHAIN_UNAVAILABLE: 'chain sepolia: RPC did not answer eth_chainId within 10000 ms',
  RPC_ANSWER_TOO_LARGE: "eth_getLogs: the chain RPC's answer is over the relay's cap of 1048576 bytes per call; ask for less (eth_getLogs: a narrower block range)",
  KEYSTORE_UNAVAILABLE: 'key store local unavailable',
  DATABASE_UNAVAILABLE: 'database unavailable',
  INTERNAL: 'internal error (request id 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a61)',
  GOVERNANCE_UNVERIFIED: "vault treasury's governance does not verify, so it signs nothing: the policy row is not the policy of the state in force",
  VAULT_FROZEN: 'vault treasury is frozen: it signs nothing until the freeze is lifted (docs/governance.md)',
  WALLET_BINDING_INVALID: `wallet ${EXAMPLES_.wallet.address}: its row does not match the vault its key was bound to (its vault, key store or key reference was changed since), which points to a change made in the database; nothing was signed (docs/security.md)`,
  PRICE_FEED_STALE: 'limit daily-usd: price feed 0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419 of native on chain mainnet answered at 2026-06-01T00:00:00.000Z, older than its maxAgeSeconds 3600; nothing was signed',
  PRICE_FEED_UNAVAILABLE: 'limit daily-usd: price feed 0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419 of native on chain mainnet cannot be read (latestRoundData reverted); nothing was signed',
  SIGN_LIMIT_RECORDS_MISSING: 'limit daily: at most 1000 signs per 1d for each wallet: the database holds fewer signs in its window than this instance counted (rows of sign_counts were deleted or changed in the database); nothing was signed, and the limit refuses until those signs have left its window (docs/security.md)',
  APPROVAL_RECORD_INVALID: 'approval 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a62: its row does not carry the seal its wallet made when it was held (its requester, expiry or request was changed in the database, or it was held by a release before seals); it is never released: ask for it again (docs/security.md)',
  PROPOSAL_NOT_FOUND: 'proposal 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a63 not found in this vault',
  PROPOSAL_CLOSED: 'proposal 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a63 is applied: it takes no more votes',
  SIMULATION_REVERTED: `simulation: the transaction reverts on sepolia (eth_call from ${EXAMPLES_.wallet.address} at the pending block): Error("insufficient balance"); nothing was signed`,
  KEYSTORE_EXPORT_UNSUPPORTED: 'key store aws-kms cannot export keys: its keys never leave it (docs/keystores.md#key-export)',
  EXPORT_NOT_AUTHORIZED: 'vault 01a203ce-d2cc-77ef-ac68-6a9348ed87a0 is governed: this export waits for proposal 01a203ce-e0a1-7000-8000-000000000001 (1 of 2 signatures)',
  KEYSTORE_IMPORT_UNSUPPORTED: 'key store aws-kms cannot import keys: create the wallet in it instead, or import into a store that can (docs/keystores.md#key-import)',
  CONSOLE_UNAVAILABLE: "the approvers' console is not enabled: VAULT_PUBLIC_URL is not set (docs/console.md)",
  CONSOLE_CSRF_HEADER_MISSING: 'console: a state-changing request needs the header X-Requested-With: wallet-vault-console',
  VAULT_SEALED: 'the vault is sealed (VAULT_SEAL=shamir): nothing is signed until custodians unseal it with their master key shares (POST /api/v1/sys/unseal, wallet-vault unseal)',
  AUDIT_SINK_UNAVAILABLE: 'no audit sink accepts records (VAULT_AUDIT_REQUIRE_SINK): writes are refused until one does; nothing was written',
  OIDC_UNAVAILABLE: 'the identity provider cannot be reached: its signing keys (jwks_uri) could not be fetched (docs/operators.md, "Sign-in with OpenID Connect")',
};

export const ERROR_EXAMPLES_BY_OPERATION: Readonly<Record<string, Partial<Record<ErrorCode, string>>>> = {
  sign: {
    UNAUTHENTICATED: 'X-Vault-Auth-Signature header is required',
    WALLET_NOT_FOUND: `signer ${EXAMPLES_.wallet.address} is not a wallet of this vault`,
  },
  signMessage: {
    POLICY_DENIED: 'policy: this vault has no policy document, and without one only Sign calls are signed (wallet-vault policies apply)',
    INVALID_ARGUMENT: 'message: must be a string or {"raw": "0x…"}',
  },
  signTypedData: {
    POLICY_DENIED: "policy: no rule of this vault's policy allows this typed-data (rule typed-data-1: verifying contract 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48 is not in its contracts)",
    INVALID_ARGUMENT: 'primaryType: "Mail" is not a type in types',
  },
  signTransaction: {
    POLICY_DENIED: "policy: no rule of this vault's policy allows this transaction (rule transactions: recipient 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC is not in its contracts)",
    INVALID_ARGUMENT: 'chainId: is required',
  },
  signAuthorization: {
    POLICY_DENIED: "policy: no rule of this vault's policy allows this authorization (rule delegates: contract 0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B is not in its contracts)",
    INVALID_ARGUMENT: 'chainId: is required (0: every chain)',
  },
  evaluatePolicy: { INVALID_ARGUMENT: 'kind: must be one of call, message, typed-data, transaction, authorization' },
  recordSubmission: { CONFLICT: 'submissionHash: a different transaction is already recorded for this submission' },
  readyz: { KEYSTORE_UNAVAILABLE: 'key store pkcs11 unavailable' },
  approveProposal: {
    INVALID_ARGUMENT: 'signatures: is not a field of this request (signature)',
    APPROVAL_ALREADY_VOTED: `proposal 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a63: ${GOVERNANCE_APPROVERS[1]} has already signed it, or it closed meanwhile`,
  },
  rejectProposal: {
    INVALID_ARGUMENT: 'signatures: is not a field of this request (signature)',
    APPROVAL_ALREADY_VOTED: `proposal 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a63: ${GOVERNANCE_APPROVERS[2]} has already signed it, or it closed meanwhile`,
    APPROVAL_SIGNATURE_INVALID: 'proposal 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a63: the signature is not a Decision (reject) signature of an approver of vault treasury',
  },
  freezeVault: { INVALID_ARGUMENT: 'reason: must be a string' },
  metrics: { UNAUTHENTICATED: 'metrics need the operator token (Authorization: Bearer <VAULT_METRICS_TOKEN>)' },
  unseal: {
    INVALID_ARGUMENT: 'share: is corrupted (its checksum does not match its content): ask its custodian for an intact copy; nothing was counted',
    CONFLICT: 'share: share 2 of this split was already submitted; each custodian submits a different share',
  },
  seal: { UNAUTHENTICATED: 'seal needs the operator token (Authorization: Bearer <VAULT_METRICS_TOKEN>)' },
};
