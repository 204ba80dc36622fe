import { z } from 'zod';
import { ErrorCode } from '../../src/domain/errors.js';
import type { SigningResultSchema } from '../../src/domain/signing/signing-kind.js';
import { REGISTERED_SIGNING_KINDS, SIGNING_KIND_NAMES, standardKindOf, STANDARD_KIND_NAMES } from '../../src/domain/signing/kinds/registered-signing-kinds.js';
import { chainName } from './schemas.js';

/*
 * What the server answers, as zod schemas: the presenters are typed by them (so a field cannot leave
 * without being described) and the OpenAPI document renders them.
 */

const HEX32 = /^0x[0-9a-f]{64}$/;
const instant = (description: string) => z.iso.datetime().meta({ description });
const checksummed = (description: string) => z.string().regex(/^0x[0-9a-fA-F]{40}$/).meta({ description });


const STANDARD_KINDS = STANDARD_KIND_NAMES.map(standardKindOf);

export const walletSchema = z
  .object({
    id: z.uuid().meta({ description: 'UUIDv7 (time-ordered).' }),
    account: z.string().meta({ description: 'The account that owns the vault.' }),
    vault: z.string(),
    name: z.string(),
    address: checksummed('EIP-55 checksummed.'),
    created: instant('ISO 8601, UTC.'),
    updated: instant('Equals `created` at creation; changes on rename, expire and unexpire.'),
    expires: instant('Present while the wallet is expiring: the expire call plus 30 days. From then on the wallet is gone (404).').optional(),
    derivationPath: z
      .string()
      .regex(/^m\/44'\/60'\/0'\/0\/\d+$/)
      .meta({ description: "Present for a wallet derived from its vault's HD seed (`\"derivation\": \"hd\"`): its BIP-32 path; the seed and this path restore its key." })
      .optional(),
    exported: instant(
      "Present once the wallet's key, or its vault's HD seed, was exported (encrypted to a recipient, `wallet-vault keys export`): when it first was. Never removed: the key is known outside the vault for ever.",
    ).optional(),
  })
  .meta({ id: 'Wallet' });
export type WalletView = z.infer<typeof walletSchema>;

export const walletPageSchema = z
  .object({
    count: z.int().min(0).meta({ description: "The vault's total number of wallets (not the page length)." }),
    page: z.array(walletSchema),
  })
  .meta({ id: 'WalletPage' });

export const vaultStatusSchema = z
  .object({
    timestamp: instant("The server's time."),
    online: z.boolean(),
    vaultKeys: z.int().min(0).meta({ description: 'Active API keys of this vault.' }),
    wallets: z.int().min(0),
    version: z.string(),
  })
  .meta({ id: 'VaultStatus' });

export const signatureStructSchema = z
  .object({
    nonce: z.string().regex(HEX32),
    r: z.string().regex(HEX32),
    s: z.string().regex(HEX32),
    v: z.union([z.literal(27), z.literal(28)]),
  })
  .meta({ id: 'SignatureStruct', description: 'The signature parameter `(bytes32 nonce, bytes32 r, bytes32 s, uint8 v)`; `s` in the lower half of the curve order.' });

export const signResultSchema = z
  .object({
    submissionHash: z.string().regex(HEX32).meta({ description: 'keccak256(abi.encode(nonce, r, s, v)): the key the contract records, and the key of `/submissions`.' }),
    args: z.array(z.unknown()).meta({
      description:
        'The arguments as supplied, unchanged, with the SignatureStruct inserted at the position of the signature parameter: exactly the argument list of the on-chain call (viem `writeContract({ args })`, ethers `contract.fn(...args)`).',
    }),
  })
  .meta({ id: 'SignResult' });

const HEX = (bytes: number) => new RegExp(`^0x[0-9a-f]{${2 * bytes}}$`);

export const signatureResultSchema = z
  .object({
    signature: z.string().regex(HEX(65)).meta({ description: '65 bytes `r ‖ s ‖ v`, `s` in the lower half of the curve order, `v` 27 or 28.' }),
  })
  .meta({ id: 'SignatureResult' });

export const signedTransactionSchema = z
  .object({
    serialized: z.string().regex(/^0x(?:[0-9a-f]{2})+$/).meta({ description: 'The signed transaction, as `eth_sendRawTransaction` takes it (legacy with its EIP-155 `v`).' }),
    hash: z.string().regex(HEX32).meta({ description: 'Its transaction hash.' }),
  })
  .meta({ id: 'SignedTransaction' });

export const signedAuthorizationSchema = z
  .object({
    signature: z.string().regex(HEX(65)).meta({ description: '65 bytes `r ‖ s ‖ v`, `v` 27 or 28.' }),
    yParity: z.union([z.literal(0), z.literal(1)]).meta({ description: 'As a type-4 transaction carries it (`v` − 27).' }),
    r: z.string().regex(HEX32),
    s: z.string().regex(HEX32).meta({ description: 'In the lower half of the curve order.' }),
  })
  .meta({ id: 'SignedAuthorization' });

/** Each kind's answer by the id its module names (SigningKind.resultSchema). */
export const RESULT_SCHEMAS = {
  SignResult: signResultSchema,
  SignatureResult: signatureResultSchema,
  SignedTransaction: signedTransactionSchema,
  SignedAuthorization: signedAuthorizationSchema,
} as const satisfies Record<SigningResultSchema, z.ZodType>;
/** What an approved request's `result` can be: the answers of the registered kinds, once each, in their order. */
const kindResultSchemas = [...new Set(REGISTERED_SIGNING_KINDS.map((kind) => kind.resultSchema))].map((id) => RESULT_SCHEMAS[id]);

/** An amount in a token's units (docs/policy.md#names-and-units): the policy document's `tokens`, formatted decimal-exact. */
export const tokenAmountSchema = z
  .object({
    symbol: z.string(),
    decimals: z.int().min(0).max(77),
    units: z.string().meta({ description: 'The amount in the token\'s units: the whole part grouped by threes with a space, the fraction without trailing zeros (`15 000`, `0.5`).' }),
    text: z.string().meta({ description: '`15 000 TUSD (15000000000)`: the units, the symbol and the base units as signed.' }),
  })
  .meta({ id: 'TokenAmount' });

/** What a view shows beside a value (approval-units.ts): the operator's name of an address, a token amount in its units. */
const shownBeside = {
  addressName: z.string().optional().meta({ description: "The operator's name of an address value (the vault policy's `addressNames`, else `contractNames`); absent when none names it. Never the requester's." }),
  tokenAmount: tokenAmountSchema.optional().meta({ description: "The amount of a transfer, transferFrom or approve of a token the vault policy's `tokens` names, in its units; absent otherwise." }),
};

export const approvalSchema = z
  .object({
    id: z.uuid().meta({ description: 'UUIDv7 (time-ordered).' }),
    kind: z.enum(SIGNING_KIND_NAMES).meta({ description: 'What is held: a Sign call, or a message, typed data, a transaction or an EIP-7702 authorization of a wallet.' }),
    status: z.enum(['pending', 'approved', 'rejected', 'expired']).meta({
      description: 'As of this answer: `pending` until the quorum approves (`approved`), one approver rejects (`rejected`) or `expires` passes (`expired`). Only `approved` was ever signed.',
    }),
    required: z.int().min(1).max(10).meta({ description: 'Approvals needed (M of the rule).' }),
    approvals: z.int().min(0).meta({ description: 'Approve votes counted so far (the same number as `approvalCount`).' }),
    approvalCount: z.int().min(0).meta({ description: 'Approve votes counted so far: what a proposal\'s `approvalCount` counts too.' }),
    expires: instant('When a pending request stops taking votes and is never signed (default: 24 h after the request).'),
    created: instant('When the sign was asked.'),
    decided: instant('When it was approved, rejected or marked expired.').nullable(),
    rule: z.string().meta({ description: 'The approval rule of the vault policy that held the sign (`a1`, ...).' }),
    group: z.string().nullable().meta({ description: 'Only approver keys of this group vote on it; null: any approver key of the vault.' }),
    requester: z.string().meta({ description: '`api-key:<id>`: the key that asked. It can never vote on its own request.' }),
    requesterLabel: z.string().optional().meta({ description: "The requester key's label (`api-keys create --label`), beside its id; absent when it has none. The operator's words, not part of a governed vault's signed state: the id is what identifies the key." }),
    request: z
      .union([
        z
          .object({
            chain: chainName(),
            contract: checksummed('As asked.'),
            contractName: z
              .string()
              .optional()
              .meta({ description: "The operator's name of `contract` (the vault policy's `contractNames`, docs/policy.md); absent when the policy names it not. Never the requester's." }),
            sender: checksummed('As asked.'),
            uniq: z.string().optional().meta({ description: 'As asked (chains without an RPC).' }),
            signer: z.string().optional().meta({ description: 'As asked (chains without an RPC).' }),
            uniqBinding: z
              .object({
                pinnedFor: z
                  .array(z.object({ address: checksummed('A contract the policy pins this uniq to (`uniqs`).'), name: z.string().nullable().meta({ description: "The operator's name of it (`contractNames`), or null." }) }))
                  .meta({ description: 'The contracts the policy in force pins `uniq` to, in its order; empty: none.' }),
                contractPin: z.string().regex(HEX32).nullable().meta({ description: 'The uniq the policy pins for `contract`; null: it pins none.' }),
                warning: z.string().nullable().meta({
                  description: 'For approvers, when `contract` is not the contract the policy pins `uniq` to: the signature binds the uniq, not the address, so it is valid where the uniq is (docs/security.md#what-a-signature-binds). Null when it is that contract.',
                }),
              })
              .optional()
              .meta({ description: 'With `uniq`: what the policy in force says of it (absent without a uniq: the vault reads it from the contract at the release).' }),
            function: z.string().meta({ description: 'The canonical signature of the function, signature parameter included.' }),
            selector: z.string().regex(/^0x[0-9a-f]{8}$/),
            arguments: z
              .array(z.object({ name: z.string().meta({ description: "The operator's name: the parameter's in the function of the policy rule that held the request (else of the first rule with this selector); `args[0]`, `args[1]`, ... where that function names none, no rule has it, or in the answer that holds the sign. Never the parameter names of the ABI item the requester sent." }), type: z.string(), value: z.unknown(), ...shownBeside }))
              .meta({ description: 'The arguments as parsed against the ABI item: integers as decimal strings, addresses EIP-55, tuples and arrays as arrays.' }),
          })
          .meta({ id: 'ApprovalCallRequest', description: 'A held Sign call: what is asked, exactly as the Sign request gave it (what is approved is what is signed).' }),
        z
          .object({
            wallet: checksummed('The signing wallet.'),
            // One field per standard kind of the registry: its held request's field.
            ...Object.fromEntries(STANDARD_KINDS.map((kind) => [kind.requestField, z.unknown().optional().meta({ description: kind.requestDescription })])),
            tokenCall: z
              .object({
                token: checksummed('The transaction\'s `to`: a token the vault policy\'s `tokens` names.'),
                symbol: z.string(),
                function: z.enum(['transfer', 'transferFrom', 'approve']),
                arguments: z.array(z.object({ name: z.string(), type: z.enum(['address', 'uint256']), value: z.string(), ...shownBeside })),
              })
              .optional()
              .meta({ description: "A held transaction's transfer, transferFrom or approve of a token the vault policy's `tokens` names, read with names and units beside the values (docs/policy.md#names-and-units); absent for any other transaction. `transaction` is the request as held." }),
          })
          .meta({ id: 'ApprovalStandardRequest', description: 'A held message, typed data or transaction: the wallet and the request exactly as given (what is approved is what is signed).' }),
      ])
      .meta({ description: 'What is asked: a Sign call (`kind` call), or the body of sign-message, sign-typed-data or sign-transaction.' }),
    requestHash: z
      .string()
      .regex(/^0x[0-9a-f]{64}$/)
      .meta({
        description:
          'sha256 of the request as stored (`0x` + 64 lower-case hex digits): the `request` of the EIP-712 `Decision` an approver signs, `Decision(string vault,string approval,bytes32 request,string decision)` in the domain `{"name": "wallet-vault", "version": "1"}` (docs/api.md#signed-votes).',
      }),
    votes: z
      .array(
        z.object({
          by: z.string().meta({ description: '`api-key:<id>`' }),
          byLabel: z.string().optional().meta({ description: "The voting key's label, beside `by`; absent when it has none." }),
          vote: z.enum(['approve', 'reject']),
          at: instant('When the vote was counted.'),
          signature: z.string().nullable().meta({ description: "The vote's EIP-712 `Decision` signature by its key's approver address; null: a key without credential." }),
        }),
      )
      .meta({ description: 'Every vote, oldest first.' }),
    result: z
      .union(kindResultSchemas)
      .nullable()
      .meta({ description: "The result once approved, as the request's route answers it (Sign's; `{signature}` for a message or typed data; `{serialized, hash}` for a transaction); null before." }),
    simulation: z
      .strictObject({
        chain: z.string(),
        method: z.enum(['eth_call', 'eth_simulateV1']),
        nativeOutflow: z.string().regex(/^-?[0-9]+$/).optional().meta({ description: "Wei the wallet's balance falls by (negative: rises), the fee aside; only when a rule bounds it." }),
        tokenOutflow: z.record(z.string(), z.string().regex(/^-?[0-9]+$/)).optional().meta({ description: 'ERC-20 contract to the units the wallet falls by; only when a rule bounds it.' }),
        tokenOutflowUnits: z
          .record(z.string(), tokenAmountSchema)
          .optional()
          .meta({ description: "`tokenOutflow` of the tokens the vault policy's `tokens` names, in their units (docs/policy.md#names-and-units); absent when it names none of them." }),
      })
      .nullable()
      .meta({
        description:
          "What the simulation of a held transaction found when it was held (it did not revert, or it would not be held), for its approvers: the chain, the method, and the wallet's outflows when a rule bounds them. null: not simulated (not a transaction, no RPC for its chain, or a rule's `simulate: false`). It runs again at the release.",
      }),
    blockedBy: z
      .strictObject({
        reason: z.enum(['limit', 'freeze', 'governance', 'simulation', 'sealed']).meta({
          description: 'What refused the release: a value or count limit still full (`limit`), a frozen vault (`freeze`), governance that does not verify (`governance`), a simulation that reverts (`simulation`), a sealed vault (`sealed`).',
        }),
        code: z.string().meta({ description: "The refusal's stable error code (`RATE_LIMITED`, `VAULT_FROZEN`, ...)." }),
        message: z.string().meta({ description: "The refusal's message, as the approve call that tried the release was answered." }),
        at: instant('When the release was refused.'),
      })
      .nullable()
      .meta({
        id: 'ApprovalBlockedBy',
        description:
          'Why a pending request with its quorum is not released: the refusal of its last release attempt (the next approve call tries again). null: no release was refused, or it is decided (a release that succeeds clears it).',
      }),
  })
  .meta({ id: 'Approval' });
export type ApprovalView = z.infer<typeof approvalSchema>;

export const approvalPageSchema = z
  .object({
    count: z.int().min(0).meta({ description: 'Approvals of the vault with the status asked (not the page length).' }),
    page: z.array(approvalSchema),
  })
  .meta({ id: 'ApprovalPage' });

export const approvalRequestedSchema = z.object({ approval: approvalSchema }).meta({ id: 'ApprovalRequested' });

export const submissionSchema = z
  .object({
    submissionHash: z.string().regex(HEX32),
    vault: z.string(),
    wallet: checksummed('The wallet that signed.'),
    chain: chainName(),
    contract: checksummed('EIP-55.'),
    sender: checksummed('EIP-55.'),
    selector: z.string().regex(/^0x[0-9a-f]{8}$/),
    signed: instant('When the signature was issued.'),
    transactionHash: z.string().regex(HEX32).nullable(),
    submitted: instant('When the transaction was recorded.').nullable(),
  })
  .meta({ id: 'Submission' });
export type SubmissionView = z.infer<typeof submissionSchema>;

/**
 * Every refusal: `success` and `error` as the interface defines them, and the stable `code`. Each
 * operation's answers narrow `code` to the codes it lists (openapi/operation-codes.ts).
 */
export const errorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    error: z.string().meta({ description: 'A clear message naming the field and the problem; for 500 only `internal error (request id …)`.' }),
    code: z.enum(Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]]).meta({ description: 'Stable across releases; what a program acts on.' }),
  })
  .meta({ id: 'Error', example: { success: false, error: 'name: must be a string', code: 'INVALID_ARGUMENT' } });

/** `{"success": true, "data": …}`, the envelope of every answer but status, health and metrics. */
export const enveloped = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });



/*
 * Governance (docs/governance.md): the state in force, proposals with their diff and the typed data an
 * approver signs, a freeze.
 */
const typedField = z.object({ name: z.string(), type: z.string() });
const decisionDomain = z.object({ name: z.literal('wallet-vault'), version: z.literal('1') }).meta({ description: 'No chain and no contract: a decision is about this vault.' });
const hash32OrNull = (description: string) => z.string().regex(HEX32).nullable().meta({ description });

/** API keys or webhook endpoints a proposal adds, removes or changes, by id. */
const entriesDiff = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.string()),
  nowGoverned: z.literal(true).optional().meta({ description: 'The state before did not govern these; this change starts to.' }),
});

export const governedStateSchema = z
  .object({
    version: z.literal(1),
    vault: z.string(),
    previous: hash32OrNull('The hash of the state this one replaces; null for the genesis.'),
    policy: z.looseObject({}).nullable().meta({ description: 'The policy document (docs/policy.md); null: no policy.' }),
    governance: z.object({
      required: z.int().min(1).meta({ description: 'Signatures a change needs (M).' }),
      approvers: z.array(checksummed('EIP-55.')).meta({ description: 'The addresses whose signatures count, sorted.' }),
      delay: z.string().meta({ description: 'How long a change waits after its M-th signature (`0s`, `1h`, …).' }),
    }),
    liftedFreezes: z.int().min(0).meta({ description: 'Freezes lifted so far: the vault is frozen while it has more freezes than this.' }),
    apiKeys: z
      .array(
        z.object({
          id: z.string(),
          roles: z.array(z.string()),
          group: z.string().nullable(),
          approverAddress: checksummed('EIP-55.').nullable(),
          secretHash: z
            .string()
            .optional()
            .meta({ description: "sha256 (hex) of the key's secret: a presented secret must match it, whatever the row's hash. Absent from states made before secrets were governed." }),
          passkey: z
            .object({ credentialId: z.string(), publicKey: z.string() })
            .optional()
            .meta({ description: 'The passkey its console votes are verified with (base64url), on a key enrolled through the console only.' }),
        }),
      )
      .optional()
      .meta({ description: "The API keys that authenticate, by id, with the roles, group, credential and secret hash they act with (whatever their rows say); absent: the vault's keys are not governed by its state." }),
    webhooks: z
      .array(z.object({ id: z.string(), url: z.string(), events: z.array(z.string()) }))
      .optional()
      .meta({ description: 'The webhook endpoints events are delivered to, by id; absent: not governed by the state.' }),
  })
  .meta({ id: 'GovernedState', description: "Everything a quorum decides; its keccak256 over canonical JSON (keys sorted, no whitespace) is the document hash approvers sign." });

export const proposalSchema = z
  .object({
    id: z.uuid(),
    vault: z.string(),
    documentHash: z.string().regex(HEX32).meta({ description: 'keccak256 of the canonical JSON of `state`: the `document` of the PolicyChange and the `request` of the reject Decision.' }),
    previous: z.string().regex(HEX32).meta({ description: 'The hash of the state it replaces: it can apply only while that state is in force.' }),
    status: z.enum(['pending', 'applied', 'rejected', 'superseded']).meta({
      description: '`pending` until in force (`applied`) or vetoed by one signed reject (`rejected`); a pending proposal built on a state no longer in force is `superseded` and never applies.',
    }),
    creator: z.string().meta({ description: '`operator` (the CLI) or `api-key:<id>`.' }),
    created: instant('When it was proposed.'),
    decided: instant('When it was applied or rejected.').nullable(),
    approvals: z.array(checksummed('EIP-55.')).meta({
      description: 'Deprecated as the count: a list, where an approval\'s `approvals` is a number; count with `approvalCount`. The current approvers whose valid PolicyChange signatures it carries.',
      deprecated: true,
    }),
    approvalCount: z.int().min(0).meta({ description: 'Valid PolicyChange signatures of current approvers it carries (the length of `approvals`): what an approval\'s `approvalCount` counts too.' }),
    required: z.int().min(1).meta({ description: 'Signatures needed (M of the state in force).' }),
    effectiveAt: instant('When its quorum was complete plus the delay: from then on it is in force on every instance within the policy cache time (5 s).').nullable(),
    rejectedBy: checksummed('The approver whose signed reject closed it.').nullable(),
    diff: z
      .object({
        policy: z.object({
          added: z.array(z.string()),
          removed: z.array(z.string()),
          changed: z.array(z.string()),
          replaced: z.enum(['set', 'removed']).optional(),
          fields: z
            .array(
              z.object({
                entry: z.string().meta({ description: 'The entry of `changed` (`rule usdc-small-transfers`, `limit daily`, `document settings`).' }),
                field: z.string().meta({ description: 'The field of it that changed (`maxValue`, `where`, `contractNames`, …).' }),
                from: z.unknown().meta({ description: 'Its value before; null: absent.' }),
                to: z.unknown().meta({ description: 'Its value after; null: absent.' }),
              }),
            )
            .optional()
            .meta({ description: 'What each changed entry changed, field by field, old and new; absent when nothing changed.' }),
        }),
        governance: z.object({
          approversAdded: z.array(z.string()),
          approversRemoved: z.array(z.string()),
          required: z.object({ from: z.int(), to: z.int() }).optional(),
          delay: z.object({ from: z.string(), to: z.string() }).optional(),
        }),
        liftedFreezes: z.object({ from: z.int(), to: z.int() }).optional(),
        apiKeys: entriesDiff.optional(),
        webhooks: entriesDiff.optional(),
      })
      .meta({ description: 'What it changes against the state in force: rules and limits by id (`rule payouts`, `limit l1`), approvers, M, delay, freezes lifted, API keys and webhook endpoints by id.' }),
    state: governedStateSchema,
    typedData: z
      .object({
        domain: decisionDomain,
        types: z.object({ PolicyChange: z.array(typedField) }),
        primaryType: z.literal('PolicyChange'),
        message: z.object({ vault: z.string(), proposal: z.string(), document: z.string().regex(HEX32) }),
      })
      .meta({ description: "What an approver signs to approve it (ethers' and viem's `signTypedData`, `eth_signTypedData_v4`)." }),
    rejectTypedData: z
      .object({
        domain: decisionDomain,
        types: z.object({ Decision: z.array(typedField) }),
        primaryType: z.literal('Decision'),
        message: z.object({ vault: z.string(), approval: z.string(), request: z.string().regex(HEX32), decision: z.literal('reject') }),
      })
      .meta({ description: 'What an approver signs to reject it: another message than the approve, so an approve signature is never a reject.' }),
  })
  .meta({ id: 'Proposal' });
export type ProposalJson = z.infer<typeof proposalSchema>;

export const proposalPageSchema = z
  .object({ count: z.int().min(0), page: z.array(proposalSchema).meta({ description: 'Every proposal of the vault, oldest first.' }) })
  .meta({ id: 'ProposalPage' });

export const governanceSchema = z
  .object({
    vault: z.string(),
    governed: z.boolean(),
    state: governedStateSchema.nullable().meta({ description: 'The state in force; null when not governed or when it does not verify.' }),
    hash: hash32OrNull('Its hash.'),
    genesisHash: hash32OrNull('The hash of the first state: what `VAULT_GOVERNANCE_PINS` pins.'),
    pin: z.string().nullable().meta({ description: 'The configuration line that pins it (`VAULT_GOVERNANCE_PINS=<vault>:<genesis hash>`).' }),
    pinned: z.boolean().meta({ description: "Whether this instance's configuration pins the vault." }),
    frozen: z.boolean().meta({ description: 'Every signature refused (`VAULT_FROZEN`) while true.' }),
    freezes: z.int().min(0).meta({ description: 'Freezes so far.' }),
    liftedFreezes: z.int().min(0).meta({ description: 'Freezes lifted (by the state in force for a governed vault).' }),
    problem: z.string().nullable().meta({ description: 'Why the vault does not verify (it then signs nothing: `GOVERNANCE_UNVERIFIED`); null when it does.' }),
  })
  .meta({ id: 'Governance' });
export type GovernanceJson = z.infer<typeof governanceSchema>;

export const freezeResultSchema = z
  .object({ vault: z.string(), frozen: z.literal(true), freezes: z.int().min(1).meta({ description: 'Freezes so far, this one included.' }) })
  .meta({ id: 'Freeze' });

/*
 * The admin API (docs/operators.md): vaults, API keys as an operator reads them (never the key, nor its
 * hash; the key itself only in the answer that made it), a policy document, a proposal made instead.
 */
const instantOrNull = z.string().nullable();
export const adminVaultSchema = z.object({ id: z.string(), account: z.string(), name: z.string(), created: z.string() }).meta({ id: 'AdminVault' });
export const adminApiKeySchema = z
  .object({
    id: z.string(),
    vault: z.string(),
    label: z.string().nullable(),
    roles: z.array(z.enum(['admin', 'signer', 'reader', 'approver'])),
    allowCidrs: z.array(z.string()).nullable().meta({ description: 'null: from anywhere.' }),
    group: z.string().nullable(),
    approverAddress: z.string().nullable(),
    created: z.string(),
    revoked: instantOrNull,
    expires: instantOrNull,
    replacedBy: z.string().nullable().meta({ description: 'The key that replaced this one (rotated).' }),
    overlapEnds: instantOrNull.meta({ description: "A rotated key's last instant, unless its successor is used first." }),
    replaces: z.string().nullable(),
    firstUsed: instantOrNull,
  })
  .meta({ id: 'AdminApiKey' });
const proposalMadeSchema = z.object({ id: z.string(), documentHash: z.string() }).meta({ description: "A governed vault's change is a proposal its approvers sign (docs/governance.md)." });
export const adminCreatedApiKeySchema = adminApiKeySchema
  .extend({
    apiKey: z.string().meta({ description: 'The key itself: shown only in this answer.' }),
    proposal: proposalMadeSchema.optional(),
    warnings: z.array(z.string()).optional(),
  })
  .meta({ id: 'AdminCreatedApiKey' });
export const adminRotatedApiKeySchema = adminApiKeySchema
  .extend({ apiKey: z.string().meta({ description: 'The new key: shown only in this answer.' }), overlapEnds: instantOrNull.meta({ description: "The old key's last instant, unless the new key is used first." }) })
  .meta({ id: 'AdminRotatedApiKey' });
export const adminApiKeyRolesSchema = adminApiKeySchema
  .extend({
    previousRoles: z.array(z.enum(['admin', 'signer', 'reader', 'approver'])).meta({ description: 'The roles it held before (on a governed vault: as its signed state lists them).' }),
    proposal: proposalMadeSchema.optional().meta({ description: 'On a governed vault: the proposal that changes them, in force once its approvers sign it and its delay has passed; `roles` are the proposed ones.' }),
  })
  .meta({ id: 'AdminApiKeyRoles' });
export const adminRevokedApiKeySchema = z.object({ id: z.string(), revoked: z.literal(true), proposal: proposalMadeSchema.optional() });
export const adminPolicySchema = z.object({
  vault: z.string(),
  policy: z.looseObject({}).nullable().optional().meta({ description: 'The policy document in force (docs/policy.md); null: none. Absent when a proposal was made instead.' }),
  proposal: proposalMadeSchema.optional(),
});

export const adminApproverSchema = z
  .object({
    id: z.string().meta({ description: 'The approver\'s API key id (what `DELETE …/approvers/{keyId}` revokes).' }),
    name: z.string().meta({ description: 'The passkey\'s name.' }),
    vault: z.string(),
    vaultName: z.string(),
    group: z.string().nullable(),
    created: z.string(),
    revoked: instantOrNull,
    credential: z.string().meta({ description: 'The passkey\'s credential id.' }),
    enrolment: z
      .object({ status: z.enum(['in-force', 'waiting-for-quorum']), proposal: z.string().nullable() })
      .optional()
      .meta({ description: 'On a governed vault: whether the signed state lists this passkey (docs/console.md).' }),
  })
  .meta({ id: 'AdminApprover' });
export const adminInviteSchema = z
  .object({
    url: z.string().meta({ description: 'The one-time enrolment URL: in this answer only; whoever opens it first becomes an approver.' }),
    expires: z.string(),
    governed: z.boolean().meta({ description: 'On a governed vault the enrolment makes a proposal listing the passkey.' }),
  })
  .meta({ id: 'AdminInvite' });
export const adminWebhookSchema = z
  .object({
    id: z.string(),
    vault: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    created: z.string(),
    deliveredSeq: z.int().min(0).meta({ description: 'Delivered up to this audit seq.' }),
    attempts: z.int().min(0),
    nextAttempt: instantOrNull,
    firstFailure: instantOrNull,
    lastError: z.string().nullable(),
    proposal: proposalMadeSchema.optional(),
  })
  .meta({ id: 'AdminWebhook' });
export const adminWebhookRemovedSchema = z.object({ vault: z.string(), id: z.string(), removed: z.boolean().meta({ description: 'false: a proposal removes it instead.' }), proposal: proposalMadeSchema.optional() });
export const adminWebhookReplaySchema = adminWebhookSchema.extend({ fromSeq: z.int().min(1), previousSeq: z.int().min(0).meta({ description: 'Where delivery had got.' }) });
export const adminGovernanceSetSchema = z.object({
  vault: z.string(),
  genesis: z.string().optional().meta({ description: 'The genesis hash: the vault is governed from now on.' }),
  pin: z.string().optional().meta({ description: 'The line to add to every instance\'s `VAULT_GOVERNANCE_PINS`.' }),
  proposal: proposalMadeSchema.optional().meta({ description: 'A governed vault\'s change: the proposal its approvers sign.' }),
  warnings: z.array(z.string()),
});
export const adminUnfreezeSchema = z.object({
  vault: z.string(),
  lifted: z.int().min(0).optional().meta({ description: 'Freezes lifted at once (a vault that is not governed).' }),
  proposal: proposalMadeSchema.optional(),
});
