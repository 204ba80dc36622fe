import { DomainError, ErrorCode } from '../domain/errors.js';

/**
 * What a signature's record is written under: the freeze rows its vault had when the sign was let
 * through (found not frozen). The record commits only while the vault has no more than these: a freeze
 * added since, even while the key was signing, refuses it (VAULT_FROZEN) and nothing of it is written.
 */
export interface FreezeFence {
  readonly vaultId: string;
  readonly freezes: number;
}

/** Whether a record written under `fence` must be refused, the vault now having `freezesNow` freeze rows. */
export const fenceBroken = (fence: FreezeFence, freezesNow: number): boolean => freezesNow > fence.freezes;

/** The refusal of a frozen vault's signature, at its check or at its record's fence alike. */
export const vaultFrozen = (vaultId: string): DomainError =>
  new DomainError(ErrorCode.VAULT_FROZEN, `vault ${vaultId} is frozen: it signs nothing until the freeze is lifted (docs/governance.md)`);
