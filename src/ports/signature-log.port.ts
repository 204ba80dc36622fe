import type { FreezeFence } from './freeze-fence.js';
import type { AuditEvent } from './audit-log.port.js';

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
  /**
   * Records a signature durably before the signature is returned to the caller. With `issued`, its
   * signature.issued event joins the audit chain in the same transaction: the signature's record and its
   * audit record are durable together or not at all, and one commit serves both. With `fence`, refused
   * with VAULT_FROZEN (nothing written) when the vault was frozen since the sign's check.
   */
  record(entry: SignatureRecord, issued?: AuditEvent, fence?: FreezeFence | null): Promise<void>;
  /** The record of a vault's signature, or null. */
  find(vaultId: string, submissionHash: string): Promise<SignatureRecord | null>;
  /**
   * Attaches a transaction hash: `attached` the first time, `unchanged` when the same hash is sent again,
   * `conflict` when another hash is already attached, `missing` when the vault has no such signature.
   */
  attachTransaction(vaultId: string, submissionHash: string, transactionHash: string, now: Date): Promise<AttachResult>;
}
