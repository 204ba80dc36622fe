/**
 * The EIP-712 messages an approver signs (decisions.md, "Signed decisions"): a `Decision` on a held
 * request, and a `PolicyChange` of a governed vault. The vault rebuilds them from what it stores and
 * recovers the signer, so a vote or a change counts only with a signature of an approver's credential:
 * a row written into the database by anyone else counts for nothing. One definition, used by the vault
 * (verification), the client and the CLI (signing or printing for an external wallet).
 */

/** The domain of every decision: no chain and no contract, a decision is about this vault, not a chain. */
export const DECISION_DOMAIN = { name: 'wallet-vault', version: '1' } as const;

export const DECISION_TYPES = {
  Decision: [
    { name: 'vault', type: 'string' },
    { name: 'approval', type: 'string' },
    { name: 'request', type: 'bytes32' },
    { name: 'decision', type: 'string' },
  ],
} as const;

export const POLICY_CHANGE_TYPES = {
  PolicyChange: [
    { name: 'vault', type: 'string' },
    { name: 'proposal', type: 'string' },
    { name: 'document', type: 'bytes32' },
  ],
} as const;

export type DecisionKind = 'approve' | 'reject';

/** EIP-712 typed data as ethers' signTypedData, viem's signTypedData and eth_signTypedData_v4 take it (types without EIP712Domain). */
export interface DecisionTypedData<P extends 'Decision' | 'PolicyChange', M> {
  readonly domain: typeof DECISION_DOMAIN;
  readonly types: P extends 'Decision' ? typeof DECISION_TYPES : typeof POLICY_CHANGE_TYPES;
  readonly primaryType: P;
  readonly message: M;
}

export interface DecisionMessage {
  readonly vault: string;
  readonly approval: string;
  /** The approval's requestHash as 0x-prefixed 32-byte hex. */
  readonly request: string;
  readonly decision: DecisionKind;
}

export interface PolicyChangeMessage {
  readonly vault: string;
  readonly proposal: string;
  /** The proposal's documentHash as 0x-prefixed 32-byte hex. */
  readonly document: string;
}

const BYTES32 = /^0x[0-9a-f]{64}$/;

/** A stored hash as EIP-712 bytes32 text: the vault stores hex with or without 0x; signatures cover 0x + lower case. */
export function asBytes32(hash: string): string {
  const hex = (hash.startsWith('0x') ? hash : `0x${hash}`).toLowerCase();
  if (!BYTES32.test(hex)) throw new TypeError(`not a 32-byte hash: ${hash.slice(0, 80)}`);
  return hex;
}

/** The `Decision` an approver signs to approve or reject approval `approval` of `vault` holding the request `requestHash`. */
export function decisionTypedData(vault: string, approval: string, requestHash: string, decision: DecisionKind): DecisionTypedData<'Decision', DecisionMessage> {
  return { domain: DECISION_DOMAIN, types: DECISION_TYPES, primaryType: 'Decision', message: { vault, approval, request: asBytes32(requestHash), decision } };
}

/** The `PolicyChange` an approver of a governed vault signs to put proposal `proposal` (document `documentHash`) in force. */
export function policyChangeTypedData(vault: string, proposal: string, documentHash: string): DecisionTypedData<'PolicyChange', PolicyChangeMessage> {
  return { domain: DECISION_DOMAIN, types: POLICY_CHANGE_TYPES, primaryType: 'PolicyChange', message: { vault, proposal, document: asBytes32(documentHash) } };
}
