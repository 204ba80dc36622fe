import { APPROVAL_STATUSES } from '../../src/domain/approval.js';
import { z } from 'zod';
import { invalidArgument } from '../../src/domain/errors.js';
import { LIST_DEFAULT_COUNT, LIST_MAX_COUNT } from '../../src/application/wallets/list-wallets.use-case.js';
import { CHAINS } from '../../src/domain/chains.js';
import { CHAIN_NAME } from '../chain/chains.js';
import { WALLET_NAME_MAX } from '../../src/domain/wallet.js';
import { AUTHORIZATION_FIELDS } from '../../src/domain/signing/kinds/authorization/authorization.input.js';
import { MESSAGE_FIELDS } from '../../src/domain/signing/kinds/message/message.input.js';
import { TRANSACTION_FIELDS } from '../../src/domain/signing/kinds/transaction/transaction.input.js';
import { TYPED_DATA_FIELDS } from '../../src/domain/signing/kinds/typed-data/typed-data.input.js';

/*
 * The request schemas the HTTP layer parses with. The OpenAPI document (openapi/openapi-document.ts) is
 * rendered from these same objects, so what it promises is what the server checks. Messages are the
 * ones the domain would give for the same input, so a client sees one wording whichever layer refuses.
 */

const HEX32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A query parameter that must be a plain non-negative decimal integer, given at most once. */
const queryInteger = (name: string, fallback: number, description: string, maximum?: number) =>
  z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return fallback;
      if (typeof value !== 'string') {
        ctx.addIssue({ code: 'custom', message: `${name}: must be given once` });
        return z.NEVER;
      }
      if (!/^\d{1,15}$/.test(value)) {
        ctx.addIssue({ code: 'custom', message: `${name}: ${JSON.stringify(value)} is not a non-negative integer` });
        return z.NEVER;
      }
      return Number(value);
    })
    // The wire form: a query string is text, but what it must hold is a non-negative integer.
    .meta({ description, override: { type: 'integer', minimum: 0, ...(maximum === undefined ? {} : { maximum }), default: fallback } });

export const listQuerySchema = z.object({
  offset: queryInteger('offset', 0, 'How many wallets to skip (order: `created` ascending, then `id`).'),
  count: queryInteger('count', LIST_DEFAULT_COUNT, `Page length, 0 to ${LIST_MAX_COUNT}.`, LIST_MAX_COUNT),
});

/** `GET …/approvals`: paged as the wallets, optionally of one status. */
export const approvalListSchema = z.object({
  offset: queryInteger('offset', 0, 'How many approvals to skip (order: `created` ascending, then `id`).'),
  count: queryInteger('count', LIST_DEFAULT_COUNT, `Page length, 0 to ${LIST_MAX_COUNT}.`, LIST_MAX_COUNT),
  status: z
    .enum(APPROVAL_STATUSES, { error: `must be one of ${APPROVAL_STATUSES.join(', ')}` })
    .optional()
    .meta({ description: 'Only approvals of this status (as of the read: a pending approval past `expires` is expired).' }),
});

/**
 * A body's own error: a field the request does not have is named (a client that believes a field binds
 * the request must hear that it does not), anything that is no object is said to be none.
 */
export const bodyError =
  (fields: readonly string[]) =>
  (issue: { code?: string; keys?: readonly string[] }): string =>
    issue.code === 'unrecognized_keys' && issue.keys
      ? `${issue.keys.join(', ')}: ${issue.keys.length === 1 ? 'is not a field' : 'are not fields'} of this request (${fields.join(', ')})`
      : 'body: must be a JSON object';

/** "is required" for a field left out, `otherwise` for one of the wrong type. */
const requiredOr =
  (otherwise: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? 'is required' : otherwise;

/** Bodies of create and rename. Trimming, length in code points and lone surrogates are the domain's. */
export const nameBodySchema = z.strictObject(
  {
    name: z.string({ error: requiredOr('must be a string') }).meta({
      description: `1 to ${WALLET_NAME_MAX} characters after trimming, counted as Unicode code points; no lone surrogates and no control characters.`,
      example: 'treasury',
    }),
  },
  { error: bodyError(['name']) },
);

/** The body of a wallet's creation: its name and, to derive it from the vault's HD seed, `derivation`. */
export const createWalletBodySchema = z.strictObject(
  {
    name: nameBodySchema.shape.name,
    derivation: z
      .literal('hd', { error: 'must be "hd" (a wallet derived from the vault\'s HD seed) or left out (a generated key)' })
      .optional()
      .meta({
        description:
          "`hd`: the key is derived from the vault's BIP-39 seed (generated in the vault at its first derived wallet, kept under the master key) at the vault's next index, `m/44'/60'/0'/0/<index>`, recorded as `derivationPath`. Only in a key store that holds key material (`local`); any other is 400 naming `derivation` and the store. Left out: a generated key.",
      }),
  },
  { error: bodyError(['name', 'derivation']) },
);

/**
 * A vote's body, for the OpenAPI document (the route checks it field by field, naming the field). Left
 * out entirely by a key without credential.
 */
export const voteBodySchema = z
  .strictObject({
    signature: z
      .string()
      .regex(/^0x[0-9a-fA-F]{130}$/)
      .meta({
        description:
          "The EIP-712 signature (65 bytes) of the key's approver address over `Decision(string vault,string approval,bytes32 request,string decision)`, domain `{\"name\": \"wallet-vault\", \"version\": \"1\"}`, with `request` the approval's `requestHash` and `decision` `approve` or `reject`. Required of a key with a credential (else 403 `APPROVAL_SIGNATURE_INVALID`); a key without one may leave the body out.",
      })
      .optional(),
  })
  .meta({ id: 'VoteRequest' });

const hash32 = (description: string) =>
  z.string({ error: requiredOr('must be 0x-prefixed 32-byte hex') }).regex(HEX32, 'must be 0x-prefixed 32-byte hex').meta({ description });

export const submissionBodySchema = z.strictObject(
  {
    submissionHash: hash32('The `submissionHash` Sign returned.'),
    transactionHash: hash32('The hash of the transaction that carried the signed call.'),
  },
  { error: bodyError(['submissionHash', 'transactionHash']) },
);

/*
 * Sign's body, for the document only. Its fields are checked once, by the sign use case (readSignFields:
 * the route hands it the body as sent; the ABI decides what each argument must be, which no static
 * schema can say); this schema states the JSON shapes that can be accepted, and docs/api.md and
 * docs/signing.md say the rest. test/unit/sign-body-schema.test.ts holds it to the use case's check
 * (the same fields, the same verdicts), and the conformance check of the HTTP tests to every request
 * the server signed.
 */
/** A chain: one of the interface's (CHAINS) or one the operator added with VAULT_CHAINS (name:chainId). */
export const chainName = () =>
  z
    .string()
    .regex(CHAIN_NAME)
    .meta({
      description: `One of ${CHAINS.map((c) => `\`${c}\``).join(', ')}, or a chain the server adds with \`VAULT_CHAINS\`; any other name is 400. \`local\`: \`uniq\` and \`signer\` come from the request; otherwise from the contract when an RPC is configured.`,
      examples: [...CHAINS],
    });

const address = (description: string) => z.string().regex(ADDRESS).meta({ description });

interface AbiParameter {
  name?: string | undefined;
  type: string;
  components?: AbiParameter[] | undefined;
}
const abiParameterSchema: z.ZodType<AbiParameter> = z
  .looseObject({
    name: z.string().optional(),
    type: z.string().meta({ description: 'A Solidity ABI type: `uint256`, `address[]`, `tuple`, `bytes32[2]`, …' }),
    get components() {
      return z.array(abiParameterSchema).optional();
    },
  })
  .meta({ id: 'AbiParameter' });

export const signBodySchema = z
  .strictObject({
    chain: chainName(),
    contract: address('The signable contract (any case; a mixed-case address must be valid EIP-55).'),
    sender: address('The account that will send the transaction (`msg.sender` the contract sees).'),
    uniq: hash32("The contract's `uniq()`: required for `local` and for chains without an RPC; must match the chain otherwise.").optional(),
    signer: address("The contract's `signer()`, a wallet of this vault: required for `local` and for chains without an RPC.").optional(),
    abi: z
      .looseObject({
        // Absent or null both mean a function, as for viem's and ethers' ABI items.
        type: z.literal('function').nullable().optional(),
        name: z.string(),
        inputs: z.array(abiParameterSchema),
      })
      .meta({
        description:
          'The single ABI item of the function being signed (not the whole ABI). Exactly one input is the signature parameter, a tuple `(bytes32 nonce, bytes32 r, bytes32 s, uint8 v)`.',
      }),
    simulate: z.boolean().optional().meta({
      description:
        'true: the call is run on its chain (`eth_call` from `sender` at the pending block) with the signature in place before it is answered; a revert is 422 `SIMULATION_REVERTED` and the signature is never handed out. The chain must have an RPC.',
    }),
    args: z.array(z.unknown()).meta({
      description:
        "The function's arguments without the signature parameter, in order. Integers as JSON numbers (safe integers) or decimal or `0x` strings; `bytes`/`bytesN` and addresses as `0x` hex; tuples as objects by component name or as arrays; arrays as arrays.",
    }),
  })
  .meta({ id: 'SignRequest' });

/** zod's first issue as a DomainError naming the field. */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const message = issue.message.includes(':') ? issue.message : `${issue.path.join('.') || 'body'}: ${issue.message}`;
  throw invalidArgument(message);
}

/*
 * The standard-signing bodies (docs/standard-signing.md). As for Sign, the kind's reader checks them
 * (src/domain/signing/kinds/<name>/<name>.input.ts) and names the field it refuses; these schemas state the
 * JSON it accepts, for the document and for the conformance check that holds them to every request the
 * server signed. Each is keyed by its kind's field table (`KindShape`): a field the reader reads and the
 * schema does not state, or the other way round, does not compile.
 */
type KindShape<Fields extends readonly string[]> = { readonly [F in Fields[number]]: z.ZodType };
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;
const hexBytes = (description: string) => z.string().regex(HEX_BYTES).meta({ description });
const quantity = (description: string) =>
  z.union([z.int().min(0), z.string().regex(/^(0|[1-9][0-9]{0,77}|0x[0-9a-fA-F]{1,64})$/)]).meta({ description: `${description} A safe-integer number, a decimal string or \`0x\` hex.` });

export const signMessageBodySchema = z
  .strictObject({
    message: z
      .union([z.string(), z.strictObject({ raw: hexBytes('The bytes to sign, as they are.') })])
      .meta({ description: 'Text (signed as its UTF-8 bytes, also when it looks like hex), or `{"raw": "0x…"}` for bytes.' }),
  } satisfies KindShape<typeof MESSAGE_FIELDS>)
  .meta({ id: 'SignMessageRequest' });

export const signTypedDataBodySchema = z
  .strictObject({
    domain: z
      .strictObject({
        name: z.string().optional(),
        version: z.string().optional(),
        chainId: quantity('The chain id the signature is bound to; with `verifyingContract`, what the policy allows.').optional(),
        verifyingContract: address('The contract the signature is for.').optional(),
        salt: z.string().regex(HEX32).optional(),
      })
      .meta({ description: 'The EIP-712 domain.' }),
    types: z
      .record(z.string(), z.array(z.object({ name: z.string(), type: z.string() })))
      .meta({ description: 'The struct types by name (`EIP712Domain` may be included, in the standard field order).' }),
    primaryType: z.string().meta({ description: 'The struct of `message` (not `EIP712Domain`).' }),
    message: z.record(z.string(), z.unknown()).meta({ description: 'The value of `primaryType`: integers as numbers or strings, bytes as `0x` hex.' }),
  } satisfies KindShape<typeof TYPED_DATA_FIELDS>)
  .meta({ id: 'SignTypedDataRequest' });

const gasQuantity = (description: string) => quantity(description).nullable().optional();
export const signTransactionBodySchema = z
  .strictObject({
    type: z
      .union([z.enum(['legacy', 'eip2930', 'eip1559', 'eip7702']), z.string().regex(/^0x0?[0-24]$/), z.int().min(0).max(4)])
      .nullable()
      .optional()
      .meta({ description: 'Absent: inferred from the fee fields and `authorizationList`, as viem does. Blob transactions are refused.' }),
    chainId: quantity('Required, at least 1.'),
    nonce: quantity('Required.'),
    to: address('The recipient; absent or null: a contract creation.').nullable().optional(),
    from: address('When given, the signing wallet.').nullable().optional(),
    value: quantity('Wei; default 0.').optional(),
    data: hexBytes('Call data.').nullable().optional(),
    input: hexBytes('The same as `data` (JSON-RPC\'s name).').nullable().optional(),
    gas: gasQuantity('The gas limit (or `gasLimit`): one is required.'),
    gasLimit: gasQuantity('The same as `gas`.'),
    gasPrice: gasQuantity('Legacy and eip2930.'),
    maxFeePerGas: gasQuantity('eip1559.'),
    maxPriorityFeePerGas: gasQuantity('eip1559.'),
    accessList: z
      .array(z.object({ address: address('An account.'), storageKeys: z.array(z.string().regex(HEX32)) }))
      .nullable()
      .optional()
      .meta({ description: 'eip2930 and eip1559 (a legacy transaction only an empty one).' }),
    authorizationList: z
      .array(
        z.object({
          chainId: quantity('0: every chain.'),
          address: address('The delegate.').optional(),
          contractAddress: address("viem's name for `address`.").optional(),
          nonce: quantity("The authority's account nonce when it is applied."),
          yParity: quantity('0 or 1 (or `v` 27 or 28).').optional(),
          v: quantity('27 or 28, in place of yParity.').optional(),
          r: z.string().regex(/^0x[0-9a-fA-F]{1,64}$/),
          s: z.string().regex(/^0x[0-9a-fA-F]{1,64}$/),
        }),
      )
      .min(1)
      .max(256)
      .nullable()
      .optional()
      .meta({ description: 'eip7702 (type 4): the signed EIP-7702 authorizations it carries (`sign-authorization` answers one).' }),
  } satisfies KindShape<typeof TRANSACTION_FIELDS>)
  .meta({ id: 'SignTransactionRequest' });

/*
 * Governance (docs/governance.md): a vote on a proposal carries the approver's EIP-712 signature; a
 * freeze an optional reason. A missing or malformed signature is the use case's refusal (403
 * APPROVAL_SIGNATURE_INVALID, decisions.md: "a missing or wrong signature"), not the schema's 400, so
 * the field is read as anything here and documented as what it must be.
 */
export const proposalVoteBodySchema = z.strictObject(
  {
    signature: z
      .unknown()
      .optional()
      .meta({
        description:
          "The approver's EIP-712 signature, 65 bytes as `0x` hex: of the proposal's `typedData` (PolicyChange) to approve, of its `rejectTypedData` (Decision `reject`) to reject. Missing, malformed, or not of an approver of the state in force: 403 `APPROVAL_SIGNATURE_INVALID`.",
        override: { type: 'string', pattern: '^0x[0-9a-fA-F]{130}$' },
      }),
  },
  { error: bodyError(['signature']) },
);

export const freezeBodySchema = z.strictObject(
  {
    reason: z
      .string({ error: 'must be a string' })
      .max(500, 'at most 500 characters')
      .optional()
      .meta({ description: 'Why, for the audit trail (`vault.frozen`); at most 500 characters.', example: 'approver key may be stolen' }),
  },
  { error: bodyError(['reason']) },
);
export const signAuthorizationBodySchema = z
  .strictObject({
    chainId: quantity('The chain the delegation is valid on; 0: every chain (only under a rule with `anyChain: true`).'),
    address: address('The delegate contract: the wallet runs its code.'),
    nonce: quantity("The wallet's account nonce when the authorization is applied: the current nonce + 1 when the wallet sends the type-4 transaction itself."),
  } satisfies KindShape<typeof AUTHORIZATION_FIELDS>)
  .meta({ id: 'SignAuthorizationRequest' });

/*
 * The admin API's bodies (docs/operators.md). Types are checked here; values (a label's characters, an
 * expiry, a CIDR range, an address) by the use case, which names the field whose value it refuses.
 */
const optionalText = (description: string, example?: string) =>
  z.string({ error: 'must be a string' }).optional().meta({ description, ...(example === undefined ? {} : { example }) });

export const adminVaultBodySchema = z.strictObject(
  {
    name: z.string({ error: requiredOr('must be a string') }).meta({ description: 'The vault\'s name (as `vaults create --name`).', example: 'payments' }),
    account: optionalText('The owning account (1 to 100 of letters, digits, `.`, `_`, `-`); default `default`.', 'default'),
  },
  { error: bodyError(['name', 'account']) },
);

export const adminApiKeyBodySchema = z.strictObject(
  {
    roles: z
      .array(z.enum(['admin', 'signer', 'reader', 'approver'], { error: 'each must be one of admin, signer, reader, approver' }), { error: 'must be an array of roles' })
      .min(1, 'at least one role')
      .optional()
      .meta({ description: 'What the key may do; default: every role but `approver`.', example: ['signer', 'reader'] }),
    allowSignerApprover: z.boolean({ error: 'must be true or false' }).optional().meta({ description: 'Let one key hold `approver` with `signer` or `admin` (refused otherwise).' }),
    allowCidrs: z.array(z.string({ error: 'each must be a string' }), { error: 'must be an array of addresses or CIDR ranges' }).optional().meta({ description: 'Networks the key may call from; default: anywhere.', example: ['10.0.0.0/8'] }),
    group: optionalText("An approver key's group."),
    approverAddress: optionalText("An approver key's credential: the address its votes must be signed by."),
    label: optionalText('The key\'s name for people.', 'payments backend'),
    expires: optionalText('When the key stops authenticating: a duration (`30d`) or an ISO 8601 time with a zone; default: never.', '30d'),
  },
  { error: bodyError(['roles', 'allowSignerApprover', 'allowCidrs', 'group', 'approverAddress', 'label', 'expires']) },
);

export const adminRotateBodySchema = z.strictObject(
  { overlap: optionalText('How long the old key keeps working unless the new one is used first (`0s` to `31d`); default `1h`.', '1h') },
  { error: bodyError(['overlap']) },
);

export const adminApiKeyRolesBodySchema = z.strictObject(
  {
    roles: z
      .array(z.enum(['admin', 'signer', 'reader', 'approver'], { error: 'each must be one of admin, signer, reader, approver' }), { error: requiredOr('must be an array of roles') })
      .min(1, 'at least one role')
      .meta({ description: 'What the key may do from now on (replacing its roles).', example: ['reader'] }),
    allowSignerApprover: z.boolean({ error: 'must be true or false' }).optional().meta({ description: 'Let the key hold `approver` with `signer` or `admin` (refused otherwise).' }),
  },
  { error: bodyError(['roles', 'allowSignerApprover']) },
);

export const adminInviteBodySchema = z.strictObject(
  {
    group: optionalText('The approver group its votes count in.'),
    expires: optionalText('How long the URL can be used: `1m` to `30d`; default `24h`.', '24h'),
  },
  { error: bodyError(['group', 'expires']) },
);

export const adminWebhookBodySchema = z.strictObject(
  {
    url: z.string({ error: requiredOr('must be a string') }).meta({ description: 'An `https://` URL (`http://` only to a loopback host).', example: 'https://hooks.example.com/vault' }),
    events: z
      .array(z.string({ error: 'each must be a string' }), { error: 'must be an array of event types' })
      .optional()
      .meta({ description: 'The event types it receives (docs/webhooks.md); default: all.', example: ['approval.requested'] }),
  },
  { error: bodyError(['url', 'events']) },
);

export const adminWebhookReplayBodySchema = z.strictObject(
  {
    fromSeq: z
      .int({ error: requiredOr('must be a whole number') })
      .min(1, 'an audit seq, a whole number of at least 1')
      .meta({ description: "The audit seq to send again from; at most one past the endpoint's cursor.", example: 120 }),
  },
  { error: bodyError(['fromSeq']) },
);

/** The settings are checked by the use case, which names the field (`required`, `approvers`, `delay`). */
export const adminGovernanceBodySchema = z.strictObject(
  {
    required: z.int({ error: requiredOr('must be a whole number') }).meta({ description: 'Signatures a change needs (1 to the number of approvers).', example: 2 }),
    approvers: z
      .array(z.string({ error: 'each must be a string' }), { error: requiredOr('must be an array of Ethereum addresses') })
      .meta({ description: "The approvers' Ethereum addresses.", example: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'] }),
    delay: optionalText('How long a change waits after its M-th signature: `0s`, `30m`, `1h`, `2d`; default `0s`.', '1h'),
  },
  { error: bodyError(['required', 'approvers', 'delay']) },
);
