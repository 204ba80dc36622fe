import type { z } from 'zod';
import { standardKindOf, STANDARD_KIND_NAMES, type StandardKindName } from '../../../src/domain/signing/kinds/registered-signing-kinds.js';
import { signAuthorizationBodySchema, signMessageBodySchema, signTransactionBodySchema, signTypedDataBodySchema } from '../schemas.js';
import { EXAMPLES } from './examples.js';

/** The standard kinds of the registry, in its order: one operation each in the OpenAPI document. */
export const STANDARD_KINDS = STANDARD_KIND_NAMES.map(standardKindOf);

/**
 * What the OpenAPI document shows of a standard kind's route beyond its module's facts (summary,
 * description, operationId, result schema): its body's schema (written from the kind's field table,
 * schemas.ts) and its examples. One entry per kind, so the compiler asks a new kind for its own.
 */
export const STANDARD_KIND_DOCUMENTS: {
  readonly [K in StandardKindName]: { readonly body: z.ZodType; readonly request: unknown; readonly result: unknown; readonly held: unknown };
} = {
  message: { body: signMessageBodySchema, request: EXAMPLES.signMessageRequest, result: EXAMPLES.signMessageResult, held: EXAMPLES.messageApprovalRequested },
  'typed-data': { body: signTypedDataBodySchema, request: EXAMPLES.signTypedDataRequest, result: EXAMPLES.signTypedDataResult, held: EXAMPLES.typedDataApprovalRequested },
  transaction: { body: signTransactionBodySchema, request: EXAMPLES.signTransactionRequest, result: EXAMPLES.signTransactionResult, held: EXAMPLES.transactionApprovalRequested },
  authorization: { body: signAuthorizationBodySchema, request: EXAMPLES.signAuthorizationRequest, result: EXAMPLES.signAuthorizationResult, held: EXAMPLES.authorizationApprovalRequested },
};
