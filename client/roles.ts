import { OPERATION_ROLE, type VaultOperation } from './operation-roles.js';

/**
 * The roles an API key may hold (`wallet-vault api-keys create --roles …`), written out here because the
 * client imports nothing of the server (test/client/roles.test.ts holds them to the server's). A key
 * created without `--roles`, or before roles existed, holds all of them.
 */
export const VAULT_ROLES = ['admin', 'signer', 'reader', 'approver'] as const;

export type VaultRole = (typeof VAULT_ROLES)[number];

/**
 * The operation each VaultClient method calls (its operationId in the OpenAPI document). Its role is the
 * route's, from client/operation-roles.ts, which the build generates from the server's route table.
 */
const METHOD_OPERATION = {
  createWallet: 'createWallet',
  renameWallet: 'renameWallet',
  expireWallet: 'expireWallet',
  unexpireWallet: 'unexpireWallet',
  sign: 'sign',
  signMessage: 'signMessage',
  signTypedData: 'signTypedData',
  signTransaction: 'signTransaction',
  signAuthorization: 'signAuthorization',
  submit: 'recordSubmission',
  listWallets: 'listWallets',
  wallets: 'listWallets',
  getWallet: 'getWallet',
  getSubmission: 'getSubmission',
  status: 'status',
  evaluatePolicy: 'evaluatePolicy',
  // A held sign is asked on the route that signs: the request methods need what their signing method needs.
  requestSign: 'sign',
  requestSignMessage: 'signMessage',
  requestSignTypedData: 'signTypedData',
  requestSignTransaction: 'signTransaction',
  requestSignAuthorization: 'signAuthorization',
  listApprovals: 'listApprovals',
  getApproval: 'getApproval',
  approve: 'approveApproval',
  reject: 'rejectApproval',
  governance: 'getGovernance',
  'proposals.list': 'listProposals',
  'proposals.get': 'getProposal',
  'proposals.approve': 'approveProposal',
  'proposals.reject': 'rejectProposal',
  freeze: 'freezeVault',
} as const satisfies Record<string, VaultOperation>;

export type VaultClientMethod = keyof typeof METHOD_OPERATION;

/**
 * The role each VaultClient method needs of its key; a call with a key without it fails with a
 * VaultError of status 403 and code `ROLE_REQUIRED` (the OpenAPI document lists the same per operation).
 * A list: any one of them.
 */
export const REQUIRED_ROLE = Object.fromEntries(Object.entries(METHOD_OPERATION).map(([method, operation]) => [method, OPERATION_ROLE[operation]])) as {
  readonly [M in VaultClientMethod]: (typeof OPERATION_ROLE)[(typeof METHOD_OPERATION)[M]];
};
