import { parseApproverGroup } from '../../domain/approval-rules.js';
import { invalidArgument } from '../../domain/errors.js';
import { parseWindow } from '../../domain/sign-limits.js';
import { withoutTrailingSlashes } from '../../domain/url-path.js';
import type { Passkey } from '../../ports/console-store.port.js';
import { auditEvent, OPERATOR } from '../audit/audit-actor.js';
import { requireVault } from '../wallets/wallet-lookup.js';
import { approverOf, ConsoleRoom, enrolmentProposal, secret, sha256, shortId, type Approver, type Enrolment } from './console-room.js';

/*
 * The operator's side of the console (`wallet-vault approvers invite|list`): one-time enrolment URLs, and
 * the vault's enrolled approvers with their enrolment's standing on a governed vault.
 */

export const DEFAULT_INVITE_MS = 24 * 3_600_000;
export const MAX_INVITE_MS = 30 * 24 * 3_600_000;

export class ConsoleInvites extends ConsoleRoom {
  /**
   * `wallet-vault approvers invite`: a one-time enrolment URL for the vault (and group), good until
   * `expiresMs` from now. Only its hash is stored; audited (approver.invited) under `actor` (the local operator by default).
   */
  async invite(vaultId: string, options: { group?: string; expiresMs?: number; expires?: string } = {}, actor: string = OPERATOR): Promise<{ url: string; expires: Date; governed: boolean }> {
    const { store } = this.parts();
    await requireVault(this.deps.repository, vaultId);
    const governed = await this.deps.governed(vaultId);
    if (governed?.apiKeys === null) {
      throw invalidArgument(
        `vault: ${vaultId} is governed by a state that does not list its API keys, so a passkey approver could not be listed there; run governance set to propose that it does (docs/console.md)`,
      );
    }
    const group = options.group === undefined ? null : parseApproverGroup(options.group);
    const ms = options.expires !== undefined ? windowOf(options.expires) : (options.expiresMs ?? DEFAULT_INVITE_MS);
    if (!Number.isSafeInteger(ms) || ms < 60_000 || ms > MAX_INVITE_MS) throw invalidArgument('expires: from 1m to 30d');
    const token = secret();
    const tokenHash = sha256(token);
    const now = this.deps.clock.now();
    const expires = new Date(now.getTime() + ms);
    await store.addInvite(
      { tokenHash, vaultId, group, created: now, expires, used: null, apiKeyId: null },
      auditEvent('approver.invited', now, actor, vaultId, shortId(tokenHash), { group, expires: expires.toISOString() }),
    );
    return { url: `${withoutTrailingSlashes(this.deps.publicUrl!)}/console/#enrol=${token}`, expires, governed: governed !== null };
  }

  /**
   * `wallet-vault approvers list`: the vault's enrolled approvers, revoked ones included; on a governed vault
   * each with its enrolment's standing (in force when the signed state lists this key with this passkey).
   */
  async list(vaultId: string): Promise<(Approver & { revoked: string | null; credential: string })[]> {
    const { store } = this.parts();
    const vault = await requireVault(this.deps.repository, vaultId);
    const keys = new Map((await this.deps.repository.listApiKeys(vaultId)).map((k) => [k.id, k]));
    const governed = await this.deps.governed(vaultId);
    const listed = new Map(governed?.apiKeys?.map((k) => [k.id, k]));
    const pending = governed === null ? [] : await this.deps.governance.list(vaultId);
    const enrolmentOf = (p: Passkey): Enrolment | undefined => {
      if (governed === null) return undefined;
      const pinned = listed.get(p.apiKeyId)?.passkey;
      if (pinned !== undefined && pinned.credentialId === p.credentialId && pinned.publicKey === p.publicKey) return { status: 'in-force', proposal: null };
      return { status: 'waiting-for-quorum', proposal: enrolmentProposal(pending, p.apiKeyId, p.credentialId) };
    };
    return (await store.passkeys(vaultId)).flatMap((p) => {
      const key = keys.get(p.apiKeyId);
      return key === undefined ? [] : [{ ...approverOf(key, p, vault.name, enrolmentOf(p)), revoked: key.revoked?.toISOString() ?? null, credential: p.credentialId }];
    });
  }
}

/** `30m`, `24h`, `7d` for an invite's lifetime. */
function windowOf(text: string): number {
  try {
    return parseWindow(text);
  } catch {
    throw invalidArgument(`expires: ${JSON.stringify(text.slice(0, 40))} is not a whole number and a unit (m, h, d) from 1m to 30d, such as 24h`);
  }
}
