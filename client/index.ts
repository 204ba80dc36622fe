export { VaultClient, type VaultClientOptions, type VaultProposals, type ProposalVoteOptions } from './vault-client.js';
export { ApprovalPendingError, VaultError } from './vault-error.js';
export { VAULT_ERROR_CODES, isVaultErrorCode, type VaultErrorCode } from './error-codes.js';
export { createAuthSignature } from './auth-signature.js';
export type * from './types.js';
export { VAULT_ROLES, REQUIRED_ROLE, type VaultRole, type VaultClientMethod } from './roles.js';
