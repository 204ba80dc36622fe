import type { DecisionTypedData } from './typed-data-signer.js';

/*
 * The EIP-712 messages an approver of a governed vault signs (decisions.md, "Signed decisions";
 * docs/governance.md), built here from the proposal's id and document hash rather than taken from the
 * answer that carries them: the client signs the one shape of message it knows. Written out because the
 * client imports nothing of the server (test/client/governance.test.ts holds them to the server's).
 */

const DOMAIN = { name: 'wallet-vault', version: '1' } as const;

/** `PolicyChange(string vault,string proposal,bytes32 document)`: what approves proposal `proposal`. */
export function policyChangeTypedData(vault: string, proposal: string, documentHash: string): DecisionTypedData {
  return {
    domain: DOMAIN,
    types: { PolicyChange: [{ name: 'vault', type: 'string' }, { name: 'proposal', type: 'string' }, { name: 'document', type: 'bytes32' }] },
    primaryType: 'PolicyChange',
    message: { vault, proposal, document: bytes32(documentHash) },
  };
}

/** `Decision(string vault,string approval,bytes32 request,string decision)` with the proposal as `approval`, its document as `request`: what rejects it. */
export function rejectDecisionTypedData(vault: string, proposal: string, documentHash: string): DecisionTypedData {
  return {
    domain: DOMAIN,
    types: { Decision: [{ name: 'vault', type: 'string' }, { name: 'approval', type: 'string' }, { name: 'request', type: 'bytes32' }, { name: 'decision', type: 'string' }] },
    primaryType: 'Decision',
    message: { vault, approval: proposal, request: bytes32(documentHash), decision: 'reject' },
  };
}

function bytes32(hash: string): string {
  const hex = hash.toLowerCase();
  if (!/^0x[0-9a-f]{64}$/.test(hex)) throw new TypeError(`documentHash must be 0x and 64 hex digits (got ${JSON.stringify(hash).slice(0, 80)})`);
  return hex;
}
