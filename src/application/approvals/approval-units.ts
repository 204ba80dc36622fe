import { parseAddress } from '../../domain/address.js';
import { addressNameOf, TOKEN_AMOUNT_ARGUMENT, TOKEN_AMOUNT_FIELD, tokenAmountOf, tokenOf, type TokenAmount } from '../../domain/policy/address-book.js';
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

/** The ERC-20 functions a held transaction's calldata is read as, for a token the document names: their argument names and types. */
const TOKEN_FUNCTIONS: ReadonlyMap<string, { readonly name: TokenCallView['function']; readonly params: readonly (readonly [string, 'address' | 'uint256'])[] }> = new Map([
  ['0xa9059cbb', { name: 'transfer', params: [['to', 'address'], ['amount', 'uint256']] }],
  ['0x23b872dd', { name: 'transferFrom', params: [['from', 'address'], ['to', 'address'], ['amount', 'uint256']] }],
  ['0x095ea7b3', { name: 'approve', params: [['spender', 'address'], ['amount', 'uint256']] }],
]);

/** A held transaction's call of a token the document's `tokens` names, read for people (the API's and the CLI's `request.tokenCall`). */
export interface TokenCallView {
  readonly token: string;
  readonly symbol: string;
  readonly function: 'transfer' | 'transferFrom' | 'approve';
  readonly arguments: ({ readonly name: string; readonly type: 'address' | 'uint256'; readonly value: string } & ShownBeside)[];
}

/**
 * `data` (a transaction's calldata) sent `to` a token of the document's `tokens`, read as its transfer,
 * transferFrom or approve with names and units beside the values; null for anything else (another
 * contract, another function, calldata that is not exactly that function's static arguments, an address
 * word with bits above its 20 bytes). The calldata is shown whole beside it, as held.
 */
export function tokenCallShown(policy: PolicyDocument | null, to: unknown, data: unknown): TokenCallView | null {
  if (typeof to !== 'string' || typeof data !== 'string' || !/^0x[0-9a-fA-F]*$/.test(data)) return null;
  const token = tokenOf(policy, to);
  const fn = TOKEN_FUNCTIONS.get(data.slice(0, 10).toLowerCase());
  if (token === null || fn === undefined || data.length !== 10 + 64 * fn.params.length) return null;
  const words = fn.params.map((_, i) => data.slice(10 + 64 * i, 74 + 64 * i));
  const args: TokenCallView['arguments'][number][] = [];
  for (const [i, [name, type]] of fn.params.entries()) {
    const word = words[i]!;
    if (type === 'address') {
      if (!/^0{24}/.test(word)) return null;
      const address = addressOf(`0x${word.slice(24)}`);
      if (address === null) return null;
      args.push({ name, type, value: address, ...nameOf(policy, type, address) });
    } else {
      const value = BigInt(`0x${word}`).toString();
      const amount = tokenAmountOf(policy, to, value);
      args.push({ name, type, value, ...(amount === null ? {} : { tokenAmount: amount }) });
    }
  }
  return { token: addressOf(to) ?? to, symbol: token.symbol, function: fn.name, arguments: args };
}

function addressOf(text: string): string | null {
  try {
    return parseAddress(text, 'address', { anyCase: true });
  } catch {
    return null;
  }
}
