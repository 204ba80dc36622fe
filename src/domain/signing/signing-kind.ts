import type { HeldFields, HeldRequestCodec, StandardHeld } from './held-request.js';

/**
 * What the vault knows of one kind of signature (a Sign call, an EIP-191 message, EIP-712 typed data, a
 * transaction, an EIP-7702 authorization), written once in the kind's own module under `kinds/<name>/`
 * and listed once in `kinds/registered-signing-kinds.ts`. The policy's `kinds`, an approval's `kind`, a
 * refusal's `payload`, the OpenAPI enums and the client's unions are all read from that list, so a kind
 * added there is a kind everywhere (docs/architecture.md, "Adding a signing kind").
 */
export interface SigningKind<Name extends string = string> {
  /** As a policy rule's `kinds`, an approval's `kind` and the dry run's `kind` name it. */
  readonly name: Name;
  /**
   * A standard payload of one wallet (`/wallets/{address}/sign-…`): its held request is
   * `{"kind", "address", <requestField>}` and a refusal records it as `payload`. Not standard: the Sign
   * call, whose held request is its fields (no `kind`), its signer named in the request.
   */
  readonly standard: boolean;
  /** The field of a held standard request that carries what was asked (`message`, `typedData`, …); null for a Sign call. */
  readonly requestField: string | null;
  /** The OpenAPI schema (its id) of what the kind's route answers, and of an approved request's `result`. */
  readonly resultSchema: SigningResultSchema;
  /** How its held request is written and read back (held-request.ts: versioned, checked on the way in). */
  readonly held: Pick<HeldRequestCodec<unknown>, 'version' | 'decode'> & { readonly encode: (held: never) => HeldFields };
}

/** A standard payload of one wallet: held with a description of its own (a Sign call's is its function's signature). */
export interface StandardSigningKind<Name extends string = string> extends SigningKind<Name> {
  readonly standard: true;
  readonly held: HeldRequestCodec<StandardHeld>;
  /** What an approval shows under `requestField` (the API's description of that field of a held request). */
  readonly requestDescription: string;
  /**
   * Its request's fields (the field table, `<name>.input.ts`): the reader refuses any other, and the
   * HTTP body schema states each one's JSON keyed by this table, so the two cannot name different fields.
   */
  readonly fields: readonly string[];
  /**
   * Its request as a client sent it (JSON, or the in-process API's values), read and checked at the edge
   * of the core: what the payloads port then encodes, typed. Refuses with DomainError INVALID_ARGUMENT
   * naming the field.
   */
  readonly read: (raw: unknown) => unknown;
  /**
   * Its route, as plain facts the HTTP adapter mounts: `POST /wallets/{address}/<operation>`, named
   * `operationId` in the OpenAPI document (and the name of its use case among the HTTP adapter's deps).
   */
  readonly route: {
    readonly operation: string;
    readonly operationId: string;
    /** The operation's summary and description in the OpenAPI document (what the route does; the policy's part is said once for every kind). */
    readonly summary: string;
    readonly description: string;
    /** What its 200 answer is. */
    readonly resultDescription: string;
  };
  /** What approval lists show of a held request in place of a call's function (its arguments: facts of the request). */
  readonly describeHeld: (...facts: never[]) => string;
}

/** The answers a signing route gives, by their OpenAPI ids (adapters/http/response-schemas.ts). */
export type SigningResultSchema = 'SignResult' | 'SignatureResult' | 'SignedTransaction' | 'SignedAuthorization';
