import { invalidArgument } from '../../domain/errors.js';
import { POLICY_KINDS, type PolicyKind } from '../../domain/policy/policy-document.js';
import type { PolicyDecision } from '../../domain/policy/policy-evaluation.js';
import type { Principal } from '../access/principal.js';
import type { SignCall } from './sign-call.use-case.js';
import type { SignMessage } from './sign-message.use-case.js';
import type { SignTransaction } from './sign-transaction.use-case.js';
import type { SignAuthorization } from './sign-authorization.use-case.js';
import type { SignTypedData } from './sign-typed-data.use-case.js';

/** A dry run: the kind, the signing wallet (all but `call`, whose signer is in its request), and the body of that kind's route. */
export interface EvaluatePolicyCommand {
  readonly principal: Principal;
  readonly kind: unknown;
  readonly wallet?: unknown;
  readonly request: unknown;
}

/** What a dry run answers: the decision and the rule that made it (null when none matched). */
export interface PolicyVerdict {
  readonly decision: PolicyDecision['decision'];
  readonly rule: string | null;
  readonly message: string;
}

type Evaluators = {
  readonly signCall: Pick<SignCall, 'evaluate'>;
  readonly signMessage: Pick<SignMessage, 'evaluate'>;
  readonly signTypedData: Pick<SignTypedData, 'evaluate'>;
  readonly signTransaction: Pick<SignTransaction, 'evaluate'>;
  readonly signAuthorization: Pick<SignAuthorization, 'evaluate'>;
};

/**
 * "What would happen": a request of any kind read exactly as its route reads it and decided by the one
 * policy, with the same reads (a call's uniq and signer from the chain) and the same refusals of a
 * malformed request; nothing is signed, recorded or counted. Limits are not consulted: whether one has
 * room is a fact of the moment, not of the policy.
 */
export class EvaluatePolicy {
  constructor(private readonly evaluators: Evaluators) {}

  async execute(command: EvaluatePolicyCommand): Promise<PolicyVerdict> {
    const kind = command.kind;
    if (typeof kind !== 'string' || !POLICY_KINDS.includes(kind as PolicyKind)) throw invalidArgument(`kind: must be one of ${POLICY_KINDS.join(', ')}`);
    if (command.request === undefined) throw invalidArgument('request: is required (the body of the route of that kind)');
    const { principal, request } = command;
    const address = () => {
      if (typeof command.wallet !== 'string') throw invalidArgument(`wallet: is required for kind ${kind} (the signing wallet's address)`);
      return command.wallet;
    };
    const { decision, rule, message } = await this.decide(kind as PolicyKind, principal, request, address);
    return { decision, rule, message };
  }

  private decide(kind: PolicyKind, principal: Principal, request: unknown, address: () => string): Promise<PolicyDecision> {
    const e = this.evaluators;
    switch (kind) {
      case 'call': {
        if (typeof request !== 'object' || request === null || Array.isArray(request)) throw invalidArgument('request: must be the Sign body (an object)');
        return e.signCall.evaluate(principal, request);
      }
      case 'message': {
        const body = request as { message?: unknown } | null;
        if (typeof body !== 'object' || body === null || body.message === undefined) throw invalidArgument('request.message: is required');
        return e.signMessage.evaluate({ principal, address: address(), message: body.message });
      }
      case 'typed-data':
        return e.signTypedData.evaluate({ principal, address: address(), typedData: request });
      case 'transaction':
        return e.signTransaction.evaluate({ principal, address: address(), transaction: request });
      case 'authorization':
        return e.signAuthorization.evaluate({ principal, address: address(), authorization: request });
    }
  }
}
