import { invalidArgument } from '../../domain/errors.js';
import type { PolicyDecision } from '../../domain/policy/policy-evaluation.js';
import type { SigningKindName } from '../../domain/signing/kinds/registered-signing-kinds.js';
import type { Principal } from '../access/principal.js';
import type { SignAuthorization } from './sign-authorization.use-case.js';
import type { SignCall } from './sign-call.use-case.js';
import type { SignMessage } from './sign-message.use-case.js';
import type { SignTransaction } from './sign-transaction.use-case.js';
import type { SignTypedData } from './sign-typed-data.use-case.js';

/*
 * What each signing kind asks of the application layer, keyed by the registry (REGISTERED_SIGNING_KINDS):
 * a kind module in the domain holds only facts, and what needs a use case is looked up here by its name,
 * so a new kind is asked for by the compiler rather than by a switch that forgets it.
 */

/** The use cases that decide each kind (the dry run asks them what they would decide). */
export type KindEvaluators = {
  readonly signCall: Pick<SignCall, 'evaluate'>;
  readonly signMessage: Pick<SignMessage, 'evaluate'>;
  readonly signTypedData: Pick<SignTypedData, 'evaluate'>;
  readonly signTransaction: Pick<SignTransaction, 'evaluate'>;
  readonly signAuthorization: Pick<SignAuthorization, 'evaluate'>;
};

/** A dry run of one kind: `request` is the body of that kind's route; `wallet()` the signing wallet (refused when absent). */
export type KindDryRun = (evaluators: KindEvaluators, principal: Principal, request: unknown, wallet: () => string) => Promise<PolicyDecision>;

/** Each kind's dry run: its request read as its route reads it, decided by the use case that would sign it. */
export const KIND_DRY_RUNS: { readonly [K in SigningKindName]: KindDryRun } = {
  call: (e, principal, request) => {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) throw invalidArgument('request: must be the Sign body (an object)');
    return e.signCall.evaluate(principal, request);
  },
  message: (e, principal, request, wallet) => {
    const body = request as { message?: unknown } | null;
    if (typeof body !== 'object' || body === null || body.message === undefined) throw invalidArgument('request.message: is required');
    return e.signMessage.evaluate({ principal, address: wallet(), message: body.message });
  },
  'typed-data': (e, principal, request, wallet) => e.signTypedData.evaluate({ principal, address: wallet(), typedData: request }),
  transaction: (e, principal, request, wallet) => e.signTransaction.evaluate({ principal, address: wallet(), transaction: request }),
  authorization: (e, principal, request, wallet) => e.signAuthorization.evaluate({ principal, address: wallet(), authorization: request }),
};
