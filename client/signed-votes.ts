import { decisionTypedData, type DecisionKind } from '../src/domain/signed-decisions.js';

export { decisionTypedData, type DecisionKind, type DecisionMessage, type DecisionTypedData } from '../src/domain/signed-decisions.js';

/*
 * Votes are signatures (decisions.md "Signed decisions"): an approver key with an approver address votes
 * with that address's EIP-712 `Decision`. The typed data is built here, from the vault id, the approval id
 * and the approval's requestHash, never taken from the server: what the approver's wallet signs is a
 * wallet-vault Decision and nothing else (no server could pass off a Permit as a vote).
 */

/** An ethers (v6) Signer or Wallet: `signTypedData(domain, types, value)`. */
export interface EthersDecisionSigner {
  getAddress(): Promise<string>;
  signTypedData(domain: object, types: Record<string, { name: string; type: string }[]>, value: Record<string, unknown>): Promise<string>;
}

/** A viem local account or wallet client (with its account): `signTypedData({ domain, types, primaryType, message })`. */
export interface ViemDecisionSigner {
  // viem's parameter type is generic over the typed data it is given: any one-argument signTypedData fits.
  signTypedData(parameters: never): Promise<string>;
}

/** What signs a vote: an ethers Signer, a viem account or a viem wallet client. */
export type DecisionSigner = EthersDecisionSigner | ViemDecisionSigner;

/** `signer`'s signature of the Decision `decision` on approval `approvalId` of `vaultId` holding `requestHash`. */
export async function signDecision(signer: DecisionSigner, vaultId: string, approvalId: string, requestHash: string, decision: DecisionKind): Promise<string> {
  if (typeof signer !== 'object' || signer === null || typeof (signer as { signTypedData?: unknown }).signTypedData !== 'function') {
    throw new TypeError('signer: an ethers Signer or a viem account or wallet client (something with signTypedData)');
  }
  const typed = decisionTypedData(vaultId, approvalId, requestHash, decision);
  const types = { Decision: typed.types.Decision.map((f) => ({ ...f })) };
  // ethers' signers have getAddress and take three arguments; viem's take one object.
  const signature =
    'getAddress' in signer && typeof signer.getAddress === 'function'
      ? await (signer as EthersDecisionSigner).signTypedData({ ...typed.domain }, types, { ...typed.message })
      : await (signer as ViemDecisionSigner).signTypedData({ domain: { ...typed.domain }, types, primaryType: typed.primaryType, message: { ...typed.message } } as never);
  if (typeof signature !== 'string') throw new TypeError('signer: signTypedData answered no signature');
  return signature;
}
