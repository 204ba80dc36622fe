import { decisionTypedData, type DecisionKind } from '../src/domain/signed-decisions.js';
import { signDecisionTypedData, type EthersTypedDataSigner, type TypedDataSigner, type ViemTypedDataSigner } from './typed-data-signer.js';

export { decisionTypedData, policyChangeTypedData, type DecisionKind, type DecisionMessage, type DecisionTypedData } from '../src/domain/signed-decisions.js';

/*
 * Votes are signatures (decisions.md "Signed decisions"): an approver key with an approver address votes
 * with that address's EIP-712 `Decision`. The typed data is built here, from the vault id, the approval id
 * and the approval's requestHash, never taken from the server: what the approver's wallet signs is a
 * wallet-vault Decision and nothing else (no server could pass off a Permit as a vote).
 */

/** An ethers (v6) Signer or Wallet: `signTypedData(domain, types, value)`. */
export type EthersDecisionSigner = EthersTypedDataSigner;
/** A viem local account or wallet client (with its account): `signTypedData({ domain, types, primaryType, message })`. */
export type ViemDecisionSigner = ViemTypedDataSigner;
/** What signs a vote: an ethers Signer, a viem account or a viem wallet client. */
export type DecisionSigner = TypedDataSigner;

/** `signer`'s signature of the Decision `decision` on approval `approvalId` of `vaultId` holding `requestHash`. */
export function signDecision(signer: DecisionSigner, vaultId: string, approvalId: string, requestHash: string, decision: DecisionKind): Promise<string> {
  return signDecisionTypedData(signer, decisionTypedData(vaultId, approvalId, requestHash, decision));
}
