import { invalidArgument } from '../../domain/errors.js';
import { POLICY_KINDS, type PolicyKind } from '../../domain/policy/policy-document.js';
import type { PolicyDecision } from '../../domain/policy/policy-evaluation.js';
import type { Principal } from '../access/principal.js';
import { KIND_DRY_RUNS, type KindEvaluators } from './kinds/registered-application-kinds.js';

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

/**
 * "What would happen": a request of any kind read exactly as its route reads it and decided by the one
 * policy, with the same reads (a call's uniq and signer from the chain) and the same refusals of a
 * malformed request; nothing is signed, recorded or counted. Limits are not consulted: whether one has
 * room is a fact of the moment, not of the policy.
 */
export class EvaluatePolicy {
  constructor(private readonly evaluators: KindEvaluators) {}

  async execute(command: EvaluatePolicyCommand): Promise<PolicyVerdict> {
    const kind = command.kind;
    if (typeof kind !== 'string' || !POLICY_KINDS.includes(kind as PolicyKind)) throw invalidArgument(`kind: must be one of ${POLICY_KINDS.join(', ')}`);
    if (command.request === undefined) throw invalidArgument('request: is required (the body of the route of that kind)');
    const { principal, request } = command;
    const address = () => {
      if (typeof command.wallet !== 'string') throw invalidArgument(`wallet: is required for kind ${kind} (the signing wallet's address)`);
      return command.wallet;
    };
    const { decision, rule, message } = await KIND_DRY_RUNS[kind as PolicyKind](this.evaluators, principal, request, address);
    return { decision, rule, message };
  }
}
