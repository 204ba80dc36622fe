import type { StandardHeld } from '../../../../domain/signing/held-request.js';
import { AUTHORIZATION_KIND } from '../../../../domain/signing/kinds/authorization/authorization.kind.js';
import { NOTHING_OF_A_KIND } from '../../../approvals/approval-view-parts.js';
import { SignAuthorization } from '../../sign-authorization.use-case.js';
import type { ApplicationKind } from '../application-kind.js';

/** An EIP-7702 authorization: signed (and released) by SignAuthorization. */
export const AUTHORIZATION_APPLICATION = {
  kind: AUTHORIZATION_KIND,
  useCase: SignAuthorization,
  view: ({ address, payload }, ctx) => {
    const auth = payload as Record<string, unknown>;
    const chainId = auth.chainId === undefined ? null : String(auth.chainId);
    return {
      ...NOTHING_OF_A_KIND,
      wallet: address,
      chainId,
      chainName: chainId === null ? null : ctx.chainName(chainId),
      contract: typeof auth.address === 'string' ? auth.address : null,
      // As held: `{ authorization }`, the request's field and its value.
      authorization: { authorization: payload },
    };
  },
  dryRun: (signAuthorization, principal, request, wallet) => signAuthorization.evaluate({ principal, address: wallet(), authorization: request }),
} as const satisfies ApplicationKind<typeof AUTHORIZATION_KIND, Pick<SignAuthorization, 'evaluate'>, StandardHeld>;
