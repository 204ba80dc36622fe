export { AdminClient, type AdminClientOptions } from './admin-client.js';
export { VaultClient, type VaultClientOptions, type VoteOptions, type VaultProposals, type ProposalVoteOptions } from './vault-client.js';
export { decisionTypedData, signDecision, type DecisionKind, type DecisionMessage, type DecisionSigner, type DecisionTypedData, type EthersDecisionSigner, type ViemDecisionSigner } from './signed-votes.js';
export { ApprovalPendingError, VaultError, vaultErrorOf } from './vault-error.js';
export { VAULT_ERROR_CODES, isVaultErrorCode, type VaultErrorCode } from './error-codes.js';
export { createAuthSignature } from './auth-signature.js';
export type * from './types.js';
export { VAULT_ROLES, REQUIRED_ROLE, type VaultRole, type VaultClientMethod } from './roles.js';
