import { DomainError, ErrorCode } from '../../../src/domain/errors.js';

/** The seal's name in VAULT_SEAL and in every VAULT_SEALED message. */
export const SHAMIR_SEAL = 'shamir';

/**
 * The local store's master key as the process holds it. Without a seal it is filled once at start and
 * never emptied; with VAULT_SEAL=shamir it starts empty (nothing on disk to read) and is filled by the
 * unseal (ShamirUnseal) and emptied by the seal. Every use of the key asks here, so a sealed store
 * refuses with VAULT_SEALED instead of failing as if a key file were damaged.
 */
export class MasterKeyHolder {
  private held: Buffer | undefined;
  private readonly dropped: (() => void)[] = [];

  constructor(key?: Buffer) {
    if (key !== undefined) this.fill(key);
  }

  get sealed(): boolean {
    return this.held === undefined;
  }

  /** The key, or VAULT_SEALED naming the seal while the process holds none. */
  key(): Buffer {
    if (this.held === undefined) throw sealedError();
    return this.held;
  }

  /** Takes a copy of `key` (the caller zeroes its own). */
  fill(key: Buffer): void {
    if (key.length !== 32) throw new Error('local key store: master key must be 32 bytes');
    this.held?.fill(0);
    this.held = Buffer.from(key);
  }

  /** Zeroes the key and tells whoever kept something unwrapped with it (the store's key cache) to drop it. */
  drop(): void {
    this.held?.fill(0);
    this.held = undefined;
    for (const listener of this.dropped) listener();
  }

  /** `listener` runs at each drop(). */
  onDrop(listener: () => void): void {
    this.dropped.push(listener);
  }
}

export function sealedError(): DomainError {
  return new DomainError(
    ErrorCode.VAULT_SEALED,
    `the vault is sealed (VAULT_SEAL=${SHAMIR_SEAL}): nothing is signed until custodians unseal it with their master key shares (POST /api/v1/sys/unseal, wallet-vault unseal)`,
  );
}
