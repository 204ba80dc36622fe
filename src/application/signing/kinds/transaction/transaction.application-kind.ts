import type { StandardHeld } from '../../../../domain/signing/held-request.js';
import { TRANSACTION_KIND } from '../../../../domain/signing/kinds/transaction/transaction.kind.js';
import { argumentsShown } from '../../../approvals/approval-units.js';
import { namedArguments, NOTHING_OF_A_KIND, operatorFunctions, type ApprovalView } from '../../../approvals/approval-view-parts.js';
import { SignTransaction } from '../../sign-transaction.use-case.js';
import type { ApplicationKind } from '../application-kind.js';

/** A transaction: signed (and released) by SignTransaction; its view decodes the calldata with the operator's names. */
export const TRANSACTION_APPLICATION = {
  kind: TRANSACTION_KIND,
  useCase: SignTransaction,
  view: ({ address, payload }, ctx, rule) => {
    const { facts } = TRANSACTION_KIND.read(payload);
    const chainId = facts.chainId.toString();
    let fn: ApprovalView['function'] = null;
    // The first of the operator's functions of this selector that decodes the calldata names its arguments.
    for (const named of operatorFunctions(ctx.policy, rule, facts.selector)) {
      const decoded = ctx.payloads.decodeArguments(named, facts.data);
      if (decoded === null) continue;
      fn = { signature: named.signature, name: named.name, args: argumentsShown(ctx.policy, facts.to, facts.selector, namedArguments(named.argParams, decoded, named.argParams)) };
      break;
    }
    const { data: _data, input: _input, ...fields } = payload as Record<string, unknown>;
    return {
      ...NOTHING_OF_A_KIND,
      wallet: address,
      chainId,
      chainName: ctx.chainName(chainId),
      contract: facts.to,
      value: facts.value.toString(),
      fee: facts.fee.toString(),
      function: fn,
      transaction: { calldata: facts.data, selector: facts.selector, fields },
    };
  },
  dryRun: (signTransaction, principal, request, wallet) => signTransaction.evaluate({ principal, address: wallet(), transaction: request }),
} as const satisfies ApplicationKind<typeof TRANSACTION_KIND, Pick<SignTransaction, 'evaluate'>, StandardHeld>;
