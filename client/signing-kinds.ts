// Generated from the signing-kind registry (src/domain/signing/kinds/registered-signing-kinds.ts) by `npm run build`; do not edit.

/** The kinds of signature the vault makes: what a policy rule's `kinds`, an approval's `kind` and the policy dry run's `kind` name. */
export const SIGNING_KINDS = ['call', 'message', 'typed-data', 'transaction', 'authorization'] as const;

export type SigningKindName = (typeof SIGNING_KINDS)[number];
