/** One issued signature, keyed by its submissionHash. */
export interface SignatureRecord {
  /** keccak256(abi.encode(nonce, r, s, v)), 0x-prefixed lower-case hex. */
  readonly submissionHash: string;
  readonly vaultId: string;
  readonly walletId: string;
  /** EIP-55 address of the signing wallet. */
  readonly walletAddress: string;
  readonly chain: string;
  /** EIP-55 contract address. */
  readonly contract: string;
  /** EIP-55 sender address. */
  readonly sender: string;
  /** 0x-prefixed 4-byte function selector. */
  readonly selector: string;
  readonly created: Date;
  /** The transaction that used the signature, once submitted. */
  readonly transactionHash: string | null;
  readonly submitted: Date | null;
}

export type AttachResult = 'attached' | 'unchanged' | 'conflict' | 'missing';

/** Every signature the vault issued, and the transaction that later carried it. */
export interface SignatureLog {
  /** Records a signature durably before the signature is returned to the caller. */
  record(entry: SignatureRecord): Promise<void>;
  /** The record of a vault's signature, or null. */
  find(vaultId: string, submissionHash: string): Promise<SignatureRecord | null>;
  /**
   * Attaches a transaction hash: `attached` the first time, `unchanged` when the same hash is sent again,
   * `conflict` when another hash is already attached, `missing` when the vault has no such signature.
   */
  attachTransaction(vaultId: string, submissionHash: string, transactionHash: string, now: Date): Promise<AttachResult>;
}
