import type { StandardHeld } from '../../../../domain/signing/held-request.js';
import { TYPED_DATA_KIND } from '../../../../domain/signing/kinds/typed-data/typed-data.kind.js';
import { fieldsShown } from '../../../approvals/approval-units.js';
import { NOTHING_OF_A_KIND, typedDataFieldPage, type TypedDataRequest } from '../../../approvals/approval-view-parts.js';
import { SignTypedData } from '../../sign-typed-data.use-case.js';
import type { ApplicationKind } from '../application-kind.js';

/** EIP-712 typed data: signed (and released) by SignTypedData; its view pages its fields. */
export const TYPED_DATA_APPLICATION = {
  kind: TYPED_DATA_KIND,
  useCase: SignTypedData,
  view: ({ address, payload }, ctx) => {
    const td = payload as TypedDataRequest;
    const domain = td.domain ?? {};
    const page = typedDataFieldPage(td, 0);
    const chainId = domain.chainId === undefined ? null : String(domain.chainId);
    const contract = typeof domain.verifyingContract === 'string' ? domain.verifyingContract : null;
    const primaryType = String(td.primaryType);
    return {
      ...NOTHING_OF_A_KIND,
      wallet: address,
      chainId,
      chainName: chainId === null ? null : ctx.chainName(chainId),
      contract,
      typedData: { primaryType, domain, fields: fieldsShown(ctx.policy, contract, primaryType, page.fields), fieldCount: page.total },
    };
  },
  dryRun: (signTypedData, principal, request, wallet) => signTypedData.evaluate({ principal, address: wallet(), typedData: request }),
} as const satisfies ApplicationKind<typeof TYPED_DATA_KIND, Pick<SignTypedData, 'evaluate'>, StandardHeld>;
