import { parseAddress } from '../address.js';
import type { PolicyDocument } from './policy-document.js';

/** A contract's name as the operator gave it (the policy document's `contractNames`), or null. */
export type ContractNamer = (address: string) => string | null;

/**
 * The operator's name of `address` in `policy`, or null. The address is read in any case: a request's own
 * spelling of it must not hide the name (the names are kept EIP-55).
 */
export function contractNameOf(policy: Pick<PolicyDocument, 'contractNames'> | null, address: string): string | null {
  const names = policy?.contractNames;
  if (names === undefined) return null;
  try {
    const contract = parseAddress(address, 'contract', { anyCase: true });
    return Object.hasOwn(names, contract) ? names[contract]! : null;
  } catch {
    return null;
  }
}
