/** What a create with an `Idempotency-Key` leaves behind, kept for 24 hours. */
export interface IdempotencyRecord {
  readonly vaultId: string;
  /** The client's Idempotency-Key (1 to 255 characters). */
  readonly key: string;
  /** sha256 of the request body, lower-case hex: the same key with another body is a conflict. */
  readonly requestHash: string;
  /** The first answer as the application encoded it; a retry gets it back unchanged. */
  readonly response: string;
  readonly created: Date;
  /** After this instant the record is gone for every purpose and the key may be used afresh. */
  readonly expires: Date;
}

/** What creates with an `Idempotency-Key` left behind (written with their wallet: WalletStore.insertWallet). */
export interface IdempotencyStore {
  /** The idempotency record of (vaultId, key) unless it expired at or before `now`, or null. */
  findIdempotency(vaultId: string, key: string, now: Date): Promise<IdempotencyRecord | null>;
  /** Removes up to `limit` idempotency records that expired at or before `now` (oldest expiry first); returns how many. */
  deleteExpiredIdempotency(now: Date, limit: number): Promise<number>;
}
