/**
 * The roles an API key may hold (`wallet-vault api-keys create --roles …`), written out here because the
 * client imports nothing of the server (test/client/roles.test.ts holds them to the server's). A key
 * created without `--roles`, or before roles existed, holds all of them.
 */
export const VAULT_ROLES = ['admin', 'signer', 'reader', 'approver'] as const;

export type VaultRole = (typeof VAULT_ROLES)[number];

/**
 * The role each VaultClient method needs of its key; a call with a key without it fails with a
 * VaultError of status 403 and code `ROLE_REQUIRED` (the OpenAPI document lists the same per operation).
 * A list: any one of them.
 */
export const REQUIRED_ROLE = {
  createWallet: 'admin',
  renameWallet: 'admin',
  expireWallet: 'admin',
  unexpireWallet: 'admin',
  sign: 'signer',
  signMessage: 'signer',
  signTypedData: 'signer',
  signTransaction: 'signer',
  signAuthorization: 'signer',
  submit: 'signer',
  listWallets: 'reader',
  wallets: 'reader',
  getWallet: 'reader',
  getSubmission: 'reader',
  status: 'reader',
  // The policy's dry run: any key that signs, reads or administers may ask what would be decided.
  evaluatePolicy: ['signer', 'reader', 'admin'],
  // Approvals: held signs are asked by signer keys, read by any key that signs, reads or votes, voted by approver keys.
  requestSign: 'signer',
  requestSignMessage: 'signer',
  requestSignTypedData: 'signer',
  requestSignTransaction: 'signer',
  requestSignAuthorization: 'signer',
  listApprovals: ['signer', 'reader', 'approver'],
  getApproval: ['signer', 'reader', 'approver'],
  approve: 'approver',
  reject: 'approver',
  // Governance (docs/governance.md): read by keys that read, vote or administer; proposals read as approvals; voted by approver keys; frozen by an admin key.
  governance: ['reader', 'approver', 'admin'],
  'proposals.list': ['signer', 'reader', 'approver'],
  'proposals.get': ['signer', 'reader', 'approver'],
  'proposals.approve': 'approver',
  'proposals.reject': 'approver',
  freeze: 'admin',
} as const satisfies Record<string, VaultRole | readonly VaultRole[]>;

export type VaultClientMethod = keyof typeof REQUIRED_ROLE;
