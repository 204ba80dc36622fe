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

/** The list page of that first wallet, as the server answered it. */
export const EXAMPLES = { ...EXAMPLES_, walletPage: { count: 1, page: [EXAMPLES_.wallet] } };

/**
 * One message per error code, as the server words it (test/http/openapi.test.ts provokes most of them on
 * a real server and compares); where an operation words a code its own way, ERROR_EXAMPLES_BY_OPERATION
 * says so. Typed by ErrorCode: a new code does not compile until it has its example.
 */
export const ERROR_EXAMPLES: Readonly<Record<ErrorCode, string>> = {
  INVALID_ARGUMENT: 'name: must be a string',
  MALFORMED_JSON: 'request body is not valid JSON',
  UNAUTHENTICATED: 'invalid API key for this vault',
  POLICY_DENIED: `policy: sender ${EXAMPLES_.submission.sender} is not in this vault's allowed senders`,
  WALLET_NOT_FOUND: `wallet ${EXAMPLES_.wallet.address} not found in this vault`,
  VAULT_NOT_FOUND: `vault ${EXAMPLES_.wallet.vault} does not exist`,
  SUBMISSION_NOT_FOUND: `submission ${EXAMPLES_.submission.submissionHash} not found in this vault`,
  ROUTE_NOT_FOUND: 'no route: malformed percent-encoding in path',
  IDEMPOTENCY_CONFLICT: 'Idempotency-Key: already used with a different request body in the last 24 hours; use a new key for a new request',
  CONFLICT: 'the wallet is being changed concurrently; retry the request',
  PAYLOAD_TOO_LARGE: 'request body is larger than the limit of 1048576 bytes',
  HEADERS_TOO_LARGE: 'request headers are larger than the limit of 16384 bytes',
  REQUEST_TIMEOUT: 'request was not received in time',
  RATE_LIMITED: 'rate limit exceeded for this API key; retry after 12 s',
  SIGN_LIMIT_REACHED: `limit: at most 100 signs per 1h for wallet ${EXAMPLES_.wallet.address} reached; retry after 754 s`,
  CHAIN_UNAVAILABLE: 'chain sepolia: RPC did not answer eth_chainId within 10000 ms',
  KEYSTORE_UNAVAILABLE: 'key store local unavailable',
  DATABASE_UNAVAILABLE: 'database unavailable',
  INTERNAL: 'internal error (request id 01a20a06-2b11-7c3e-8f5a-4d2c9e0b7a61)',
};

export const ERROR_EXAMPLES_BY_OPERATION: Readonly<Record<string, Partial<Record<ErrorCode, string>>>> = {
  sign: {
    UNAUTHENTICATED: 'X-Vault-Auth-Signature header is required',
    WALLET_NOT_FOUND: `signer ${EXAMPLES_.wallet.address} is not a wallet of this vault`,
  },
  recordSubmission: { CONFLICT: 'submissionHash: a different transaction is already recorded for this submission' },
  readyz: { KEYSTORE_UNAVAILABLE: 'key store pkcs11 unavailable' },
  metrics: { UNAUTHENTICATED: 'metrics need the operator token (Authorization: Bearer <VAULT_METRICS_TOKEN>)' },
};
