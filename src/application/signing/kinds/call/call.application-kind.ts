import { invalidArgument } from '../../../../domain/errors.js';
import { uniqBinding } from '../../../../domain/policy/uniq-binding.js';
import { parseAbiFunction } from '../../../../domain/signing/abi-function.js';
import { coerceArguments } from '../../../../domain/signing/argument-coercion.js';
import { CALL_KIND, type CallHeld } from '../../../../domain/signing/kinds/call/call.kind.js';
import { argumentsShown, callFunctionKey } from '../../../approvals/approval-units.js';
import { namedArguments, NOTHING_OF_A_KIND, operatorFunctions } from '../../../approvals/approval-view-parts.js';
import { SignCall } from '../../sign-call.use-case.js';
import type { ApplicationKind } from '../application-kind.js';

/** A Sign call: signed by SignCall (released through ReleaseCall, which the composition root builds round it). */
export const CALL_APPLICATION = {
  kind: CALL_KIND,
  useCase: SignCall,
  view: (request, ctx, rule) => {
    const parsed = parseAbiFunction(request.abi);
    const values = coerceArguments(request.args, parsed.argParams);
    const [named] = operatorFunctions(ctx.policy, rule, parsed.selector);
    const chainName = request.chain;
    const contract = request.contract;
    const wallet = request.signer ?? null;
    const uniq = request.uniq ?? null;
    return {
      ...NOTHING_OF_A_KIND,
      wallet,
      chainName,
      chainId: ctx.chainId(chainName),
      contract,
      function: { signature: parsed.signature, name: parsed.name, args: argumentsShown(ctx.policy, contract, callFunctionKey(parsed), namedArguments(parsed.argParams, values, named?.argParams)) },
      call: { sender: request.sender, uniq, signer: wallet, uniqBinding: uniq === null ? null : uniqBinding(ctx.policy, contract, uniq) },
    };
  },
  dryRun: (signCall, principal, request) => {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) throw invalidArgument('request: must be the Sign body (an object)');
    return signCall.evaluate(principal, request);
  },
} as const satisfies ApplicationKind<typeof CALL_KIND, Pick<SignCall, 'evaluate'>, CallHeld>;
