import { addressNameOf, TOKEN_AMOUNT_ARGUMENT, TOKEN_AMOUNT_FIELD, tokenAmountOf, type TokenAmount } from '../../domain/policy/address-book.js';
import type { PolicyDocument } from '../../domain/policy/policy-document.js';
import type { SimulationView } from './approval-outcome.js';

/*
 * Names and units beside what a held request signs (docs/policy.md, "Names and units"), the same in every
 * view (the console's, the API's, the CLI's): an address argument or field with the operator's name of it
 * (`addressNames`, else `contractNames`), the amount of an ERC-20 movement of a token the document's
 * `tokens` names in that token's units, and the simulation's token outflows the same way. What is signed
 * is shown as it is beside them: a name or a symbol only helps read it.
 */

/** What is shown beside a value: absent fields where the document says nothing of it. */
export interface ShownBeside {
  /** The operator's name of an address value. */
  readonly addressName?: string;
  /** An amount of the token called, in its units. */
  readonly tokenAmount?: TokenAmount;
}

const isAddressType = (type: string) => type === 'address';

/** The name of `value` when it is an address the document names. */
function nameOf(policy: PolicyDocument | null, type: string, value: unknown): ShownBeside {
  if (!isAddressType(type) || typeof value !== 'string') return {};
  const name = addressNameOf(policy, value);
  return name === null ? {} : { addressName: name };
}

/**
 * `args` of a transaction's calldata (`fn`: its selector) or of a Sign call (`fn`: its function's name and
 * argument types, the signature parameter left out) to `contract`, each with what is shown beside it:
 * names of addresses, and the amount of transfer, transferFrom and approve of a token of the document's `tokens`.
 */
export function argumentsShown<A extends { readonly type: string; readonly value: unknown }>(
  policy: PolicyDocument | null,
  contract: string | null,
  fn: string | null,
  args: readonly A[],
): (A & ShownBeside)[] {
  const amountAt = fn === null ? undefined : TOKEN_AMOUNT_ARGUMENT.get(fn.startsWith('0x') ? fn.toLowerCase() : fn);
  return args.map((arg, i) => {
    const amount = amountAt === i && contract !== null && arg.type === 'uint256' ? tokenAmountOf(policy, contract, arg.value) : null;
    return { ...arg, ...nameOf(policy, arg.type, arg.value), ...(amount === null ? {} : { tokenAmount: amount }) };
  });
}

/** Typed data's fields, as argumentsShown: names of addresses; the `value` of a Permit (EIP-2612, EIP-3009) of a token the document names in its units. */
export function fieldsShown<F extends { readonly path: string; readonly type: string; readonly value: unknown }>(
  policy: PolicyDocument | null,
  verifyingContract: string | null,
  primaryType: string,
  fields: readonly F[],
): (F & ShownBeside)[] {
  const amountField = TOKEN_AMOUNT_FIELD.get(primaryType);
  return fields.map((field) => {
    const amount = amountField === field.path && verifyingContract !== null ? tokenAmountOf(policy, verifyingContract, field.value) : null;
    return { ...field, ...nameOf(policy, field.type, field.value), ...(amount === null ? {} : { tokenAmount: amount }) };
  });
}

/** The simulation with its token outflows in their units (`tokenOutflowUnits`, for the tokens the document names). */
export function simulationShown(policy: PolicyDocument | null, simulation: SimulationView | null): SimulationView | null {
  if (simulation === null || simulation.tokenOutflow === undefined) return simulation;
  const units: Record<string, TokenAmount> = {};
  for (const [token, amount] of Object.entries(simulation.tokenOutflow)) {
    const shown = tokenAmountOf(policy, token, amount);
    if (shown !== null) units[token] = shown;
  }
  return Object.keys(units).length === 0 ? simulation : { ...simulation, tokenOutflowUnits: units };
}

/** A Sign call's function as TOKEN_AMOUNT_ARGUMENT keys it: its name and the types of its arguments (the signature parameter aside). */
export const callFunctionKey = (fn: { readonly name: string; readonly argParams: readonly { readonly type: string }[] }): string =>
  `${fn.name}(${fn.argParams.map((p) => p.type).join(',')})`;
