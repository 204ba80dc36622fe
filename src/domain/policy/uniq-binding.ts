import { parseAddress } from '../address.js';
import { contractNameOf } from './contract-names.js';
import type { PolicyDocument } from './policy-document.js';

/*
 * A Sign's signature binds the contract's `uniq`, never its address (docs/security.md, "What a signature
 * binds"): it is valid on every contract whose uniq() is that value and whose signer() is the wallet. So
 * the contract a request names, and the name the operator gave that contract, say nothing by themselves;
 * what says which contract a signature is for is the policy's pin of the uniq. Approvers are shown it.
 */

/** A contract by its address (EIP-55) and the operator's name of it (`contractNames`), or null. */
export interface NamedContract {
  readonly address: string;
  readonly name: string | null;
}

/** What the policy in force says of the uniq a Sign request carries. */
export interface UniqBinding {
  /** The contracts the policy pins to this uniq (`uniqs`), in the document's order. */
  readonly pinnedFor: NamedContract[];
  /** The uniq the policy pins for the request's contract (lower-case bytes32), or null when it pins none. */
  readonly contractPin: string | null;
  /**
   * For approvers, when the request's contract is not the contract the policy pins this uniq to (the
   * signature is then valid elsewhere, or on contracts the vault cannot name); null when it is.
   */
  readonly warning: string | null;
}

const described = (c: NamedContract): string => (c.name === null ? c.address : `${c.name} (${c.address})`);

/** What `policy` (its `uniqs` and `contractNames`; null: none) says of signing with `uniq` for `contract`. */
export function uniqBinding(policy: Pick<PolicyDocument, 'uniqs' | 'contractNames'> | null, contract: string, uniq: string): UniqBinding {
  const wanted = uniq.toLowerCase();
  const named = (address: string): NamedContract => ({ address, name: contractNameOf(policy, address) });
  const pins = Object.entries(policy?.uniqs ?? {});
  const pinnedFor = pins.filter(([, u]) => u === wanted).map(([address]) => named(address));
  let asked: NamedContract;
  try {
    asked = named(parseAddress(contract, 'contract', { anyCase: true }));
  } catch {
    asked = { address: contract, name: null };
  }
  const contractPin = pins.find(([address]) => address === asked.address)?.[1] ?? null;
  if (pinnedFor.some((c) => c.address === asked.address)) return { pinnedFor, contractPin, warning: null };
  let warning: string;
  if (pinnedFor.length > 0) {
    const them = pinnedFor.map(described).join(', ');
    warning = `This uniq is the one the policy pins for ${them}, not for ${described(asked)}: the signature is valid on ${pinnedFor.length === 1 ? 'that contract' : 'those contracts'}, whatever contract the request names.`;
  } else if (contractPin !== null) {
    warning = `The policy pins another uniq (${contractPin}) for ${described(asked)}: this signature is not valid there, but on any contract whose uniq() is ${wanted} and whose signer() is the signing wallet.`;
  } else {
    warning = `The policy pins this uniq to no contract: the signature is valid on every contract whose uniq() is ${wanted} and whose signer() is the signing wallet, not only on ${described(asked)}.`;
  }
  return { pinnedFor, contractPin, warning };
}
