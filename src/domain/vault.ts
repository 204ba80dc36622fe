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
}
