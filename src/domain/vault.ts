import type { ApiKeyRole, Cidr } from './api-key-access.js';

export interface Account {
  readonly id: string;
  readonly created: Date;
}

export interface Vault {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly created: Date;
}

/** An API key as stored: never the key itself, only a hash of its secret part. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly vaultId: string;
  /** sha256 of the secret part, hex. Keys are 256-bit random, so a fast hash is enough. */
  readonly secretHash: string;
  readonly created: Date;
  readonly revoked: Date | null;
  /** What the key may do (API_KEY_ROLES order, no repeats); keys made before roles existed hold all. */
  readonly roles: readonly ApiKeyRole[];
  /** The networks it may call from; null: from anywhere. */
  readonly allowCidrs: readonly Cidr[] | null;
  /** The approver group whose approval rules its votes count for; null or absent: none. */
  readonly group?: string | null;
  /**
   * The credential an approver key's votes are signed with: an EIP-55 Ethereum address. Its
   * votes count only with an EIP-712 `Decision` signature of that address; null or absent: a key from
   * before credentials, whose votes count unsigned until the operator attaches one.
   */
  readonly approverAddress?: string | null;
  /** The operator's name for the key (`--label`), shown beside its id; null or absent: none. */
  readonly label?: string | null;
  /** When it stops authenticating (`--expires`); null or absent: never. */
  readonly expires?: Date | null;
  /** The key that replaced it (`api-keys rotate`); null or absent: not rotated. */
  readonly replacedBy?: string | null;
  /** A rotated key's last instant, unless its successor is used first. */
  readonly overlapEnds?: Date | null;
  /** The key it replaced, on a key made by a rotation: its first use ends that key's overlap. */
  readonly replaces?: string | null;
  /** When a key made by a rotation first authenticated (recorded for those only). */
  readonly firstUsed?: Date | null;
}

/** A vault id as this service makes them: a UUID (v7 from UuidV7IdGenerator), 36 characters. */
const VAULT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether path text can name a vault at all. Anything else (NUL, 300 characters, other text) names no
 * vault: it is refused as an unknown vault is, without asking a database (PostgreSQL fails on NUL).
 */
export function isWellFormedVaultId(id: string): boolean {
  return id.length === 36 && VAULT_ID.test(id);
}
