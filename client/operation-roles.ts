// Generated from the route table (adapters/http/routes.ts) by `npm run build`; do not edit.

/** The API key role each vault operation (its OpenAPI operationId) needs; a list: any one of them. */
export const OPERATION_ROLE = {
  sign: 'signer',
  listApprovals: ['signer', 'reader', 'approver'],
  getApproval: ['signer', 'reader', 'approver'],
  approveApproval: 'approver',
  rejectApproval: 'approver',
  getGovernance: ['reader', 'approver', 'admin'],
  listProposals: ['signer', 'reader', 'approver'],
  getProposal: ['signer', 'reader', 'approver'],
  approveProposal: 'approver',
  rejectProposal: 'approver',
  freezeVault: 'admin',
  listWallets: 'reader',
  createWallet: 'admin',
  getWallet: 'reader',
  renameWallet: 'admin',
  expireWallet: 'admin',
  unexpireWallet: 'admin',
  status: 'reader',
  recordSubmission: 'signer',
  getSubmission: 'reader',
  signMessage: 'signer',
  signTypedData: 'signer',
  signTransaction: 'signer',
  signAuthorization: 'signer',
  evaluatePolicy: ['signer', 'reader', 'admin'],
  jsonRpc: 'signer',
} as const;

export type VaultOperation = keyof typeof OPERATION_ROLE;
