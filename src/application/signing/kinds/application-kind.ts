import type { PolicyDecision } from '../../../domain/policy/policy-evaluation.js';
import type { PolicyRule } from '../../../domain/policy/policy-document.js';
import type { SigningKind } from '../../../domain/signing/signing-kind.js';
import type { Principal } from '../../access/principal.js';
import type { ApprovalViewContext, KindView } from '../../approvals/approval-view-parts.js';

/**
 * What the application layer does with one signing kind, written in the kind's own folder
 * (`src/application/signing/kinds/<name>/`) and listed once in `registered-application-kinds.ts`: the use
 * case that signs it (the composition root resolves it, for the routes, the dry run and the release), its
 * part of an approval's view, and its dry run. The domain's kind module (`src/domain/signing/kinds/<name>/`)
 * holds its facts; this holds what needs a use case, so domain code never imports the application.
 */
export interface ApplicationKind<Kind extends SigningKind, UseCase, Held> {
  readonly kind: Kind;
  /** The use case's class: the token the composition root resolves it by. */
  readonly useCase: abstract new (...args: never[]) => UseCase;
  /** Its part of an approval's view, from its held request as its codec reads it. */
  readonly view: (held: Held, ctx: ApprovalViewContext, rule: PolicyRule | undefined) => KindView;
  /** The dry run: `request` is the body of the kind's route, `wallet()` the signing wallet (refused when absent). */
  readonly dryRun: (useCase: UseCase, principal: Principal, request: unknown, wallet: () => string) => Promise<PolicyDecision>;
}
