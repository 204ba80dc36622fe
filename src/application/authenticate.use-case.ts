import { DomainError, ErrorCode } from '../domain/errors.js';
import type { Clock } from '../ports/clock.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { parseApiKey, secretMatches } from './api-key-format.js';

export interface Principal {
  readonly apiKeyId: string;
  readonly vaultId: string;
}

const unauthenticated = (message: string) => new DomainError(ErrorCode.UNAUTHENTICATED, message);

/**
 * Checks `Authorization: Bearer <key>` against the vault named in the path. Unknown keys, revoked keys,
 * keys of another vault and unknown vaults all give the same answer, so the response is no oracle.
 */
export class Authenticate {
  constructor(
    private readonly repository: WalletRepository,
    private readonly clock: Clock,
  ) {}

  async execute(authorization: string | undefined, vaultId: string): Promise<Principal> {
    if (authorization === undefined || authorization.trim() === '') {
      throw unauthenticated('missing Authorization header (expected "Bearer <API key>")');
    }
    const match = /^(\S+)\s+(\S+)$/.exec(authorization.trim());
    if (!match) throw unauthenticated('malformed Authorization header (expected "Bearer <API key>")');
    if (match[1]!.toLowerCase() !== 'bearer') {
      throw unauthenticated('Authorization must use the Bearer scheme');
    }
    const parsed = parseApiKey(match[2]!);
    if (!parsed) throw unauthenticated('malformed API key');
    const record = await this.repository.findApiKey(parsed.id);
    const valid =
      record !== null &&
      secretMatches(parsed.secret, record.secretHash) &&
      (record.revoked === null || record.revoked.getTime() > this.clock.now().getTime()) &&
      record.vaultId === vaultId;
    if (!valid || !record) throw unauthenticated('invalid API key for this vault');
    return { apiKeyId: record.id, vaultId };
  }
}
