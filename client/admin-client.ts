import { sendCall, withoutTrailingSlashes, type Call, type Transport } from './http-call.js';
import type {
  AdminApiKey,
  AdminApiKeyRoles,
  AdminApprover,
  AdminCreatedApiKey,
  AdminGovernanceSet,
  AdminInvite,
  AdminPolicy,
  AdminRevokedApiKey,
  AdminRotatedApiKey,
  AdminUnfreeze,
  AdminVault,
  AdminWebhook,
  AdminWebhookRemoved,
  AdminWebhookReplay,
  ApiKeyOptions,
  FreezeResult,
  Governance,
  Proposal,
  ProposalPage,
} from './types.js';

/*
 * A typed client for the admin API (docs/operators.md): what `wallet-vault` does to vaults, API keys,
 * policies, approvers, webhooks, governance and freezes, as a named operator, with its credential (`wallet-vault operators create`). What it
 * may do is its roles' and vault scope's: a refusal is a VaultError 403 ROLE_REQUIRED naming the role.
 */

export interface AdminClientOptions {
  /** Where the server is, e.g. `https://vault.example.com` (a path prefix is kept). */
  readonly baseUrl: string;
  /** The operator's credential (`wvop_…`), or the ID token its sign-in through the OpenID Connect provider answered (`GET /api/v1/admin/sign-in`, docs/operators.md). */
  readonly credential: string;
  /** Per attempt; default 30 000. */
  readonly timeoutMs?: number;
  /** Attempts after the first, for reads only (a change is sent once); default 2. */
  readonly retries?: number;
  readonly retryDelayMs?: number;
  readonly fetch?: typeof globalThis.fetch;
}

/** A read is retried when no answer came or the service was away; a change never is (it may have happened). */
const READ_RETRY = (status: number) => status === 0 || status === 502 || status === 503;

export class AdminClient {
  private readonly transport: Transport;

  constructor(options: AdminClientOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('AdminClient: options { baseUrl, credential } are required');
    const { baseUrl, credential } = options;
    if (typeof baseUrl !== 'string' || !/^https?:\/\//i.test(baseUrl)) throw new TypeError('AdminClient: baseUrl must be an http(s) URL');
    if (typeof credential !== 'string' || credential === '') throw new TypeError('AdminClient: credential is required (wallet-vault operators create)');
    const count = (name: string, value: number | undefined, fallback: number, min: number) => {
      if (value === undefined) return fallback;
      if (!Number.isSafeInteger(value) || value < min) throw new TypeError(`AdminClient: ${name} must be an integer of at least ${min}`);
      return value;
    };
    const fetch = options.fetch ?? globalThis.fetch;
    if (typeof fetch !== 'function') throw new TypeError('AdminClient: no fetch available; pass options.fetch');
    this.transport = {
      base: `${withoutTrailingSlashes(baseUrl)}/api/v1/admin`,
      bearer: credential,
      timeoutMs: count('timeoutMs', options.timeoutMs, 30_000, 1),
      retries: count('retries', options.retries, 2, 0),
      retryDelayMs: count('retryDelayMs', options.retryDelayMs, 250, 0),
      fetch,
    };
  }

  /** The vaults in the operator's scope. */
  listVaults(): Promise<AdminVault[]> {
    return this.read('/vaults');
  }

  createVault(name: string, options: { account?: string } = {}): Promise<AdminVault> {
    return this.send({ method: 'POST', path: '/vaults', body: { name, ...options } });
  }

  listApiKeys(vaultId: string): Promise<AdminApiKey[]> {
    return this.read(`${vault(vaultId)}/api-keys`);
  }

  /** The key itself is in the answer only (`apiKey`); on a governed vault with the `proposal` that adds it. */
  createApiKey(vaultId: string, options: ApiKeyOptions = {}): Promise<AdminCreatedApiKey> {
    return this.send({ method: 'POST', path: `${vault(vaultId)}/api-keys`, body: options });
  }

  revokeApiKey(vaultId: string, keyId: string): Promise<AdminRevokedApiKey> {
    return this.send({ method: 'DELETE', path: `${vault(vaultId)}/api-keys/${segment(keyId, 'key id')}` });
  }

  /** A new key with the old one's access; the old one works until `overlap` (default `1h`) ends or the new one is used. */
  rotateApiKey(vaultId: string, keyId: string, options: { overlap?: string } = {}): Promise<AdminRotatedApiKey> {
    return this.send({ method: 'POST', path: `${vault(vaultId)}/api-keys/${segment(keyId, 'key id')}/rotate`, body: options });
  }

  /**
   * Replaces a key's roles (approver with signer or admin needs `allowSignerApprover`); on a governed vault
   * the answer carries the `proposal` that changes them once its approvers sign it.
   */
  setApiKeyRoles(vaultId: string, keyId: string, roles: readonly ('admin' | 'signer' | 'reader' | 'approver')[], options: { allowSignerApprover?: boolean } = {}): Promise<AdminApiKeyRoles> {
    return this.send({ method: 'PUT', path: `${vault(vaultId)}/api-keys/${segment(keyId, 'key id')}/roles`, body: { roles, ...options } });
  }

  getPolicy(vaultId: string): Promise<AdminPolicy> {
    return this.read(`${vault(vaultId)}/policy`);
  }

  /** Replaces the policy with a whole document (docs/policy.md); a governed vault answers the `proposal` instead. */
  setPolicy(vaultId: string, document: object): Promise<AdminPolicy> {
    if (typeof document !== 'object' || document === null) throw new TypeError('setPolicy: document must be an object');
    return this.send({ method: 'PUT', path: `${vault(vaultId)}/policy`, body: document });
  }

  freeze(vaultId: string, reason?: string): Promise<FreezeResult> {
    return this.send({ method: 'POST', path: `${vault(vaultId)}/freeze`, body: reason === undefined ? {} : { reason } });
  }

  /** A governed vault's freezes are lifted by a `proposal`; another's at once (`lifted`). */
  unfreeze(vaultId: string): Promise<AdminUnfreeze> {
    return this.send({ method: 'POST', path: `${vault(vaultId)}/unfreeze` });
  }

  listApprovers(vaultId: string): Promise<AdminApprover[]> {
    return this.read(`${vault(vaultId)}/approvers`);
  }

  /** A one-time enrolment URL (needs VAULT_PUBLIC_URL on the server); `expires` 1m to 30d, default 24h. */
  inviteApprover(vaultId: string, options: { group?: string; expires?: string } = {}): Promise<AdminInvite> {
    return this.send({ method: 'POST', path: `${vault(vaultId)}/approvers/invites`, body: options });
  }

  revokeApprover(vaultId: string, keyId: string): Promise<AdminRevokedApiKey> {
    return this.send({ method: 'DELETE', path: `${vault(vaultId)}/approvers/${segment(keyId, 'key id')}` });
  }

  listWebhooks(vaultId: string): Promise<AdminWebhook[]> {
    return this.read(`${vault(vaultId)}/webhooks`);
  }

  addWebhook(vaultId: string, url: string, options: { events?: string[] } = {}): Promise<AdminWebhook> {
    return this.send({ method: 'POST', path: `${vault(vaultId)}/webhooks`, body: { url, ...options } });
  }

  removeWebhook(vaultId: string, webhookId: string): Promise<AdminWebhookRemoved> {
    return this.send({ method: 'DELETE', path: `${vault(vaultId)}/webhooks/${segment(webhookId, 'webhook id')}` });
  }

  replayWebhook(vaultId: string, webhookId: string, fromSeq: number): Promise<AdminWebhookReplay> {
    return this.send({ method: 'POST', path: `${vault(vaultId)}/webhooks/${segment(webhookId, 'webhook id')}/replay`, body: { fromSeq } });
  }

  getGovernance(vaultId: string): Promise<Governance> {
    return this.read(`${vault(vaultId)}/governance`);
  }

  /** Governs a vault (the answer's `pin` goes in every instance's VAULT_GOVERNANCE_PINS), or proposes new approvers, quorum or delay. */
  setGovernance(vaultId: string, settings: { required: number; approvers: string[]; delay?: string }): Promise<AdminGovernanceSet> {
    return this.send({ method: 'PUT', path: `${vault(vaultId)}/governance`, body: settings });
  }

  listProposals(vaultId: string): Promise<ProposalPage> {
    return this.read(`${vault(vaultId)}/proposals`);
  }

  getProposal(vaultId: string, proposalId: string): Promise<Proposal> {
    return this.read(`${vault(vaultId)}/proposals/${segment(proposalId, 'proposal id')}`);
  }

  private read<T>(path: string): Promise<T> {
    return sendCall<T>(this.transport, { method: 'GET', path, retryOn: READ_RETRY });
  }

  private send<T>(call: Call): Promise<T> {
    return sendCall<T>(this.transport, call);
  }
}

function segment(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${what} must be a non-empty string`);
  return encodeURIComponent(value);
}
const vault = (vaultId: string) => `/vaults/${segment(vaultId, 'vault id')}`;
