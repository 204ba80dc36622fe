import { invalidArgument } from '../../../../domain/errors.js';
import type { StandardHeld } from '../../../../domain/signing/held-request.js';
import { MESSAGE_KIND } from '../../../../domain/signing/kinds/message/message.kind.js';
import { NOTHING_OF_A_KIND } from '../../../approvals/approval-view-parts.js';
import { SignMessage } from '../../sign-message.use-case.js';
import type { ApplicationKind } from '../application-kind.js';

/** An EIP-191 message: signed (and released) by SignMessage. */
export const MESSAGE_APPLICATION = {
  kind: MESSAGE_KIND,
  useCase: SignMessage,
  view: ({ address, payload }) => ({ ...NOTHING_OF_A_KIND, wallet: address, message: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  dryRun: (signMessage, principal, request, wallet) => {
    const body = request as { message?: unknown } | null;
    if (typeof body !== 'object' || body === null || body.message === undefined) throw invalidArgument('request.message: is required');
    return signMessage.evaluate({ principal, address: wallet(), message: body.message });
  },
} as const satisfies ApplicationKind<typeof MESSAGE_KIND, Pick<SignMessage, 'evaluate'>, StandardHeld>;
