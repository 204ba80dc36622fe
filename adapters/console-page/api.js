// @ts-check
// The console's JSON API (docs/console.md): same origin, the session cookie, and on every request the
// X-Requested-With header the vault asks of state-changing ones (a cross-site form cannot send it).

/**
 * @typedef {{ id: string, name: string, vault: string, vaultName?: string | null, group: string | null, created: string, enrolment?: Enrolment }} Approver
 * @typedef {{ status: 'in-force' | 'waiting-for-quorum', proposal: string | null }} Enrolment
 * @typedef {{ approver: { id: string, name: string | null }, decision: string, at: string, kind: string }} Vote
 * @typedef {{ symbol: string, decimals: number, units: string, text: string }} TokenAmount
 * @typedef {{ name: string, type: string, value: unknown, addressName?: string, tokenAmount?: TokenAmount }} Argument
 * @typedef {{ path: string, type: string, value: unknown, addressName?: string, tokenAmount?: TokenAmount }} TypedField
 * @typedef {{ offset: number, total: number, fields: TypedField[] }} TypedFieldPage
 * @typedef {{ address: string, name: string | null }} NamedContract
 * @typedef {{ pinnedFor: NamedContract[], contractPin: string | null, warning: string | null }} UniqBinding
 * @typedef {{ sender: string, uniq: string | null, signer: string | null, uniqBinding: UniqBinding | null }} CallFields
 * @typedef {{ calldata: string, selector: string | null, fields: Record<string, unknown> }} TransactionFields
 * @typedef {{
 *   id: string, vault: string, vaultName?: string | null,
 *   wallet: { address: string | null, name: string | null, exported?: string, derivationPath?: string },
 *   chain: { name: string | null, id: string | number | null },
 *   kind: string,
 *   contract: { address: string, name: string | null } | null,
 *   function: { signature: string, name: string, args: Argument[] } | null,
 *   call?: CallFields | null,
 *   transaction?: TransactionFields | null,
 *   value: string | null, fee: string | null,
 *   typedData: { primaryType: string, domain: Record<string, unknown>, fields: TypedField[], fieldCount?: number } | null,
 *   message: string | null,
 *   authorization?: Record<string, unknown> | null,
 *   requester: { id: string, name: string | null },
 *   created: string, expires: string, decided?: string | null, required: number, group: string | null,
 *   rule: string | null, ruleDescription?: string | null, requestHash?: string,
 *   votes: Vote[], status: string, result: Record<string, unknown> | null, simulation: { chain: string, method: string, nativeOutflow?: string, tokenOutflow?: Record<string, string>, tokenOutflowUnits?: Record<string, TokenAmount> } | null,
 *   blockedBy?: BlockedBy | null
 * }} ApprovalView
 * @typedef {{ reason: 'limit' | 'freeze' | 'governance' | 'simulation' | 'sealed', code: string, message: string, at: string }} BlockedBy
 * @typedef {{ id?: string, at?: string, action?: string, actor?: string, subject?: string, details?: unknown, [k: string]: unknown }} AuditRecord
 * @typedef {{
 *   id: string, vault?: string, status: string, creator?: unknown, created: string, decided?: string | null,
 *   expires?: string | null, approvals?: unknown[], required?: number, effectiveAt?: string | null,
 *   rejectedBy?: unknown, diff?: unknown, votes?: Vote[], documentHash?: string, [k: string]: unknown
 * }} ProposalView
 */

/** Where the API is: beside the assets folder, so a path prefix of VAULT_PUBLIC_URL carries over. */
const BASE = new URL('../api/', import.meta.url);

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * One call; resolves to the parsed body (null for 204), rejects with an ApiError carrying the vault's code.
 * @param {'GET' | 'POST' | 'DELETE'} method
 * @param {string} path relative to /console/api/
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
export async function call(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json', 'X-Requested-With': 'wallet-vault-console' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res;
  try {
    res = await fetch(new URL(path, BASE), {
      method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The vault could not be reached. Check your connection and try again.');
  }
  if (res.status === 204) return null;
  /** @type {any} */
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    // {"error": {"code", "message"}}, or the vault's other body {"code", "error"}.
    const e = data?.error;
    const code = typeof e === 'object' && e !== null ? String(e.code ?? '') : String(data?.code ?? '');
    const message = typeof e === 'object' && e !== null ? String(e.message ?? '') : typeof e === 'string' ? e : '';
    throw new ApiError(res.status, code || `HTTP_${res.status}`, message || `The vault answered ${res.status}.`);
  }
  return data;
}

export const api = {
  /** @returns {Promise<Approver | null>} the approver signed in, or null */
  async session() {
    try {
      return (await call('GET', 'session')).approver;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return null;
      throw error;
    }
  },
  /** @param {string} token */
  enrolOptions: (token) => call('POST', 'enrol/options', { token }),
  /** @param {{ token: string, name: string, response: unknown }} body @returns {Promise<{ approver: Approver }>} */
  enrol: (body) => call('POST', 'enrol', body),
  sessionOptions: () => call('POST', 'session/options', {}),
  /** @param {unknown} response @returns {Promise<{ approver: Approver }>} */
  signIn: (response) => call('POST', 'session', { response }),
  signOut: () => call('DELETE', 'session'),
  /** @param {'pending' | 'decided'} state @returns {Promise<{ approvals: ApprovalView[] }>} */
  approvals: (state) => call('GET', `approvals?state=${state}`),
  /** @param {string} id @returns {Promise<{ approval: ApprovalView, audit?: AuditRecord[] }>} */
  approval: (id) => call('GET', `approvals/${encodeURIComponent(id)}`),
  /** @param {string} id @param {number} offset @returns {Promise<TypedFieldPage>} held typed data's fields from the offset-th */
  approvalFields: (id, offset) => call('GET', `approvals/${encodeURIComponent(id)}/fields?offset=${offset}`),
  /** @param {string} id @param {'approve' | 'reject'} decision */
  decisionOptions: (id, decision) => call('POST', `approvals/${encodeURIComponent(id)}/challenge`, { decision }),
  /** @param {string} id @param {'approve' | 'reject'} decision @param {unknown} response @returns {Promise<{ approval: ApprovalView }>} */
  decide: (id, decision, response) => call('POST', `approvals/${encodeURIComponent(id)}/${decision}`, { response }),
  /** @param {'pending' | 'decided'} state @returns {Promise<{ proposals: ProposalView[] }>} */
  proposals: (state) => call('GET', `proposals?state=${state}`),
  /** @param {string} id @returns {Promise<{ proposal: ProposalView, audit?: AuditRecord[] }>} */
  proposal: (id) => call('GET', `proposals/${encodeURIComponent(id)}`),
  /** @returns {Promise<{ approvals: ApprovalView[], proposals: ProposalView[] }>} */
  history: () => call('GET', 'history'),
};
