import { prepareAuditEvent } from '../../../src/domain/audit-chain.js';
import type { ApiKeyRecord } from '../../../src/domain/vault.js';
import type { AuditEvent, AuditRecord } from '../../../src/ports/audit-log.port.js';
import type { ChallengePurpose, ConsoleInvite, ConsoleSession, ConsoleStore, IssuedChallenge, OutstandingChallenges, Passkey } from '../../../src/ports/console-store.port.js';
import { apiKeyValues, AS_IS, AUDIT, FOUND_BY_SUBJECT, INSERT_API_KEY, INSTANT, NUMBER, Table } from './rows.js';
import type { SqlDatabase } from './sql-database.js';

const PASSKEYS = new Table<Passkey>('approver_passkeys', {
  apiKeyId: AS_IS, vaultId: AS_IS, name: AS_IS, credentialId: AS_IS, publicKey: AS_IS, counter: NUMBER,
  // Comma-separated WebAuthn transports (usb, nfc, ble, internal, hybrid); null (none) is read by readPasskey.
  transports: (t: string) => t.split(','),
  created: INSTANT,
});
const INVITES = new Table<ConsoleInvite>('console_invites', {
  tokenHash: AS_IS, vaultId: AS_IS, group: ['approver_group', AS_IS], created: INSTANT, expires: INSTANT, used: INSTANT, apiKeyId: AS_IS,
});
const SESSIONS = new Table<ConsoleSession>('console_sessions', {
  idHash: AS_IS, apiKeyId: AS_IS, credentialId: AS_IS, created: INSTANT, lastSeen: INSTANT, ended: INSTANT,
});

function readPasskey<P extends Passkey | null>(p: P): P {
  return p === null || p.transports !== null ? p : ({ ...p, transports: [] } as P);
}

/** The console's tables (migration "approvers' console"): approver_passkeys, console_invites, console_sessions, console_challenges. */
/** A vault's records about one subject (an approval, a proposal), oldest first: through the partial subject index. */
export const AUDIT_OF_SUBJECT = `${AUDIT.select} WHERE vault_id = $1 AND subject = $2 AND ${FOUND_BY_SUBJECT} ORDER BY seq LIMIT $3`;

/** The challenges outstanding, of everyone and of client $1 (through console_challenges_by_client), with when the first of each expires. */
const OUTSTANDING_CHALLENGES = `SELECT count(*) AS n, min(expires) AS first,
  (SELECT count(*) FROM console_challenges WHERE client = $1) AS mine,
  (SELECT min(expires) FROM console_challenges WHERE client = $1) AS mine_first
  FROM console_challenges`;

export class SqlConsoleStore implements ConsoleStore {
  constructor(private readonly db: SqlDatabase) {}

  async addInvite(invite: ConsoleInvite, invited: AuditEvent): Promise<void> {
    const prepared = prepareAuditEvent(invited);
    await this.db.auditedTransaction(async (tx, audit) => {
      await tx.run(INVITES.insert, [invite.tokenHash, invite.vaultId, invite.group, invite.created, invite.expires, invite.used, invite.apiKeyId]);
      audit(prepared);
    });
  }

  findInvite(tokenHash: string): Promise<ConsoleInvite | null> {
    return this.first(INVITES, 'token_hash = $1', [tokenHash]);
  }

  async enrol(tokenHash: string, now: Date, key: ApiKeyRecord, passkey: Passkey, enrolled: AuditEvent): Promise<boolean> {
    const prepared = prepareAuditEvent(enrolled);
    const done = await this.db.auditedTransaction(async (tx, audit) => {
      const used = await tx.run('UPDATE console_invites SET used = $2, api_key_id = $3 WHERE token_hash = $1 AND used IS NULL AND expires > $2', [tokenHash, now, key.id]);
      if (used === 0) return false;
      await tx.run(INSERT_API_KEY, apiKeyValues(key));
      await tx.run(PASSKEYS.insert, [
        passkey.apiKeyId, passkey.vaultId, passkey.name, passkey.credentialId, passkey.publicKey, passkey.counter,
        passkey.transports.length === 0 ? null : passkey.transports.join(','), passkey.created,
      ]);
      audit(prepared);
      return true;
    });
    if (done) this.db.apiKeyCache?.forget?.();
    return done;
  }

  async passkeyByCredential(credentialId: string): Promise<Passkey | null> {
    return readPasskey(await this.first(PASSKEYS, 'credential_id = $1', [credentialId]));
  }

  async passkeyOf(apiKeyId: string): Promise<Passkey | null> {
    return readPasskey(await this.first(PASSKEYS, 'api_key_id = $1', [apiKeyId]));
  }

  async passkeys(vaultId: string): Promise<Passkey[]> {
    const rows = await this.db.all<object>(`${PASSKEYS.select} WHERE vault_id = $1 ORDER BY created, api_key_id`, [vaultId]);
    return rows.map((r) => readPasskey(PASSKEYS.read(r, this.db.instant)));
  }

  async advanceCounter(apiKeyId: string, counter: number): Promise<boolean> {
    const changed = await this.db.run('UPDATE approver_passkeys SET counter = $2 WHERE api_key_id = $1 AND (counter < $2 OR (counter = 0 AND $2 = 0))', [apiKeyId, counter]);
    return changed > 0;
  }

  async addChallenge<R>(c: IssuedChallenge, now: Date, refusal: (outstanding: OutstandingChallenges) => R | null): Promise<R | null> {
    // One at a time: two counts at once would both see room for one more.
    return this.db.serialTransaction('console_challenges', async (tx) => {
      await tx.run('DELETE FROM console_challenges WHERE expires <= $1', [now]);
      const [row] = await tx.all<{ n: unknown; first: unknown; mine: unknown; mine_first: unknown }>(OUTSTANDING_CHALLENGES, [c.client]);
      const refused = refusal({
        all: Number(row?.n ?? 0), allFirstExpires: this.instantOrNull(row?.first), client: Number(row?.mine ?? 0), clientFirstExpires: this.instantOrNull(row?.mine_first),
      });
      if (refused !== null) return refused;
      await tx.run('INSERT INTO console_challenges (challenge, purpose, subject, client, expires) VALUES ($1, $2, $3, $4, $5)', [c.challenge, c.purpose, c.subject, c.client, c.expires]);
      return null;
    });
  }

  async takeChallenge(challenge: string, purpose: ChallengePurpose, now: Date): Promise<{ subject: string | null } | undefined> {
    const [row] = await this.db.all<{ subject: string | null }>(
      'DELETE FROM console_challenges WHERE challenge = $1 AND purpose = $2 AND expires > $3 RETURNING subject',
      [challenge, purpose, now],
    );
    return row === undefined ? undefined : { subject: row.subject };
  }

  async challengesOf(client: string, now: Date): Promise<{ count: number; firstExpires: Date | null }> {
    const [row] = await this.db.all<{ n: unknown; first: unknown }>('SELECT count(*) AS n, min(expires) AS first FROM console_challenges WHERE client = $1 AND expires > $2', [client, now]);
    return { count: Number(row?.n ?? 0), firstExpires: this.instantOrNull(row?.first) };
  }

  private instantOrNull(value: unknown): Date | null {
    return value === null || value === undefined ? null : this.db.instant(value);
  }

  async startSession(session: ConsoleSession, started: AuditEvent): Promise<void> {
    const prepared = prepareAuditEvent(started);
    await this.db.auditedTransaction(async (tx, audit) => {
      await tx.run(SESSIONS.insert, [session.idHash, session.apiKeyId, session.credentialId, session.created, session.lastSeen, session.ended]);
      audit(prepared);
    });
  }

  findSession(idHash: string): Promise<ConsoleSession | null> {
    return this.first(SESSIONS, 'id_hash = $1', [idHash]);
  }

  async touchSession(idHash: string, now: Date): Promise<void> {
    await this.db.run('UPDATE console_sessions SET last_seen = $2 WHERE id_hash = $1 AND ended IS NULL', [idHash, now]);
  }

  async endSession(idHash: string, now: Date, ended?: AuditEvent): Promise<boolean> {
    const sql = 'UPDATE console_sessions SET ended = $2 WHERE id_hash = $1 AND ended IS NULL';
    if (ended === undefined) return (await this.db.run(sql, [idHash, now])) > 0;
    const prepared = prepareAuditEvent(ended);
    return this.db.auditedTransaction(async (tx, audit) => {
      if ((await tx.run(sql, [idHash, now])) === 0) return false;
      audit(prepared);
      return true;
    });
  }

  async auditOf(vaultId: string, subject: string, limit: number): Promise<AuditRecord[]> {
    const rows = await this.db.all<object>(AUDIT_OF_SUBJECT, [vaultId, subject, limit]);
    return rows.map((r) => AUDIT.read(r, this.db.instant));
  }

  private async first<T>(table: Table<T>, where: string, params: readonly unknown[]): Promise<T | null> {
    const [row] = await this.db.all<object>(`${table.select} WHERE ${where}`, params);
    return row === undefined ? null : table.read(row, this.db.instant);
  }
}
