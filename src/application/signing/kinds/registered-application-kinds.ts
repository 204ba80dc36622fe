import type { PolicyDecision } from '../../../domain/policy/policy-evaluation.js';
import type { PolicyRule } from '../../../domain/policy/policy-document.js';
import type { SigningKindName } from '../../../domain/signing/kinds/registered-signing-kinds.js';
import type { Principal } from '../../access/principal.js';
import type { ApprovalViewContext, KindView } from '../../approvals/approval-view-parts.js';
import { AUTHORIZATION_APPLICATION } from './authorization/authorization.application-kind.js';
import { CALL_APPLICATION } from './call/call.application-kind.js';
import { MESSAGE_APPLICATION } from './message/message.application-kind.js';
import { TRANSACTION_APPLICATION } from './transaction/transaction.application-kind.js';
import { TYPED_DATA_APPLICATION } from './typed-data/typed-data.application-kind.js';

/**
 * Each signing kind's application module, one line each, in the domain registry's order
 * (REGISTERED_SIGNING_KINDS; test/unit/signing-kinds.test.ts holds the two lists to the same kinds). The
 * views, the dry runs, the use cases the release and the dry run ask, are all read from it.
 */
export const REGISTERED_APPLICATION_KINDS = [CALL_APPLICATION, MESSAGE_APPLICATION, TYPED_DATA_APPLICATION, TRANSACTION_APPLICATION, AUTHORIZATION_APPLICATION] as const;

type Registered = (typeof REGISTERED_APPLICATION_KINDS)[number];
type OfKind<K extends SigningKindName> = Extract<Registered, { readonly kind: { readonly name: K } }>;
/** The use case that signs kind K. */
export type KindUseCase<K extends SigningKindName> = InstanceType<OfKind<K>['useCase']>;

/** The use cases that decide each kind, by kind (the dry run asks them what they would decide). */
export type KindEvaluators = { readonly [K in SigningKindName]: Pick<KindUseCase<K>, 'evaluate'> };

/** A dry run of any kind, its use case picked from `evaluators` by the kind's name. */
export type KindDryRun = (evaluators: KindEvaluators, principal: Principal, request: unknown, wallet: () => string) => Promise<PolicyDecision>;

const byName = <T>(entry: (kind: Registered) => T) => Object.fromEntries(REGISTERED_APPLICATION_KINDS.map((kind) => [kind.kind.name, entry(kind)]));

/** Each kind's dry run: its request read as its route reads it, decided by the use case that would sign it. */
export const KIND_DRY_RUNS = byName<KindDryRun>(
  (kind) => (evaluators, principal, request, wallet) =>
    (kind.dryRun as (useCase: unknown, principal: Principal, request: unknown, wallet: () => string) => Promise<PolicyDecision>)(evaluators[kind.kind.name], principal, request, wallet),
) as { readonly [K in SigningKindName]: KindDryRun };

/** Each kind's part of an approval's view, from its held request as its codec reads it. */
export const KIND_VIEWS = byName<unknown>((kind) => kind.view) as {
  readonly [K in SigningKindName]: (held: Parameters<OfKind<K>['view']>[0], ctx: ApprovalViewContext, rule: PolicyRule | undefined) => KindView;
};

/** Each kind's use case, by kind name, resolved by its class: how the composition root builds what is per kind (the dry run's evaluators, the release). */
export function useCasesByKind(resolve: (type: abstract new (...args: any[]) => unknown) => unknown): { readonly [K in SigningKindName]: KindUseCase<K> } {
  return byName<unknown>((kind) => resolve(kind.useCase)) as { readonly [K in SigningKindName]: KindUseCase<K> };
}
