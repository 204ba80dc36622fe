import { readTypedData } from '../../domain/signing/kinds/typed-data/typed-data.input.js';
import { createHash } from 'node:crypto';
import type { Approval } from '../../domain/approval.js';
import type { GovernedPasskey } from '../../domain/governance.js';
import { decisionTypedData, type DecisionKind } from '../../domain/signed-decisions.js';
import type { CountedVote } from '../../ports/approval-store.port.js';
import type { StandardPayloads } from '../../ports/standard-payloads.port.js';

/*
 * Votes are signatures (docs/api.md, "Signed votes"): a vote of an approver key with a
 * credential counts only with that address's EIP-712 `Decision` over the approval's requestHash. Checked
 * when the vote is cast (a refusal the voter sees) and again at release, from the stored rows, so a vote
 * row a database writer inserted, copied from another approval or left behind by a changed credential
 * counts for nothing.
 */

/** What recovers a signer: the payloads port (ethers in the Ethereum adapter). */
export type DecisionSigners = Pick<StandardPayloads, 'recoverTypedDataSigner'>;

/**
 * Whether `signature` is `address`'s `Decision` (`decision`) on `approval`. False for anything else:
 * no signature, a malformed one, another signer, another approval, request or decision, a stored
 * requestHash that is no 32-byte hash. Addresses are public: compared as they are, case aside.
 */
export function isSignedDecision(
  signers: DecisionSigners,
  approval: Pick<Approval, 'vaultId' | 'id' | 'requestHash'>,
  decision: DecisionKind,
  signature: string | null | undefined,
  address: string,
): boolean {
  if (typeof signature !== 'string') return false;
  let typedData;
  try {
    typedData = readTypedData(decisionTypedData(approval.vaultId, approval.id, approval.requestHash, decision));
  } catch {
    return false;
  }
  const signer = signers.recoverTypedDataSigner(typedData, signature);
  return signer !== null && signer.toLowerCase() === address.toLowerCase();
}

/** The stored request still hashes to the requestHash the votes signed (sha256, hex, with or without 0x). */
export function requestIntact(approval: Pick<Approval, 'request' | 'requestHash'>): boolean {
  const stored = approval.requestHash.toLowerCase().replace(/^0x/, '');
  return createHash('sha256').update(approval.request).digest('hex') === stored;
}

/**
 * On a governed vault, the addresses its signed state names as approvers (docs/governance.md): the only
 * credentials whose votes count there, so an approver key a database writer adds, or a credential it
 * changes, counts for nothing; a key without a credential votes for nothing there either. Null: the vault
 * is not governed, and a key's credential (or none) is as the database says.
 */
export type GovernedVoters = readonly string[] | null;

/** Whether `address` may vote under `governed` (any address on a vault that is not governed). */
export function isGovernedVoter(governed: GovernedVoters, address: string): boolean {
  return governed === null || governed.some((a) => a.toLowerCase() === address.toLowerCase());
}

/** What the release finds, verifying the counted votes again from the stored rows. */
export interface QuorumCheck {
  /** Counted votes whose key has a credential and whose signature does not verify (all of them when the request changed). */
  readonly invalid: readonly CountedVote[];
  /** Votes that count: signed by their key's current credential, or of a key without one (several may be one approver's: approversOf). */
  readonly valid: readonly CountedVote[];
  /** False when the stored request no longer hashes to its requestHash: no vote counts then. */
  readonly intact: boolean;
}

/**
 * Who cast a vote, as a quorum counts them: its credential, an address (any case) or a passkey the signed
 * state lists, or its key where it has neither (a key without a credential; a passkey of a vault that is not
 * governed, which belongs to that one key). Two keys of one approver address are one approver: one person's
 * Decision posted through both counts once.
 */
export function voterOf(vote: Pick<CountedVote, 'apiKeyId' | 'approverAddress'>, pinned?: Pick<GovernedPasskey, 'credentialId'>): string {
  if (vote.approverAddress !== null) return `address:${vote.approverAddress.toLowerCase()}`;
  return pinned === undefined ? `key:${vote.apiKeyId}` : `passkey:${pinned.credentialId}`;
}

/**
 * The counted votes checked for their address credentials. On a governed vault a vote of a key without an
 * address counts only when the signed state lists a passkey for it (`governedPasskeys`, by key id): its
 * assertion is then verified against that passkey (VoteOnApproval's withPasskeys), not here.
 */
export function checkQuorum(
  signers: DecisionSigners,
  approval: Approval,
  votes: readonly CountedVote[],
  governed: GovernedVoters = null,
  governedPasskeys: ReadonlySet<string> = new Set(),
): QuorumCheck {
  if (!requestIntact(approval)) return { invalid: votes, valid: [], intact: false };
  const invalid = votes.filter((v) =>
    v.approverAddress === null
      ? governed !== null && !governedPasskeys.has(v.apiKeyId)
      : !isGovernedVoter(governed, v.approverAddress) || !isSignedDecision(signers, approval, 'approve', v.signature, v.approverAddress),
  );
  return { invalid, valid: votes.filter((v) => !invalid.includes(v)), intact: true };
}

/**
 * Passkey votes (the approvers' console, docs/console.md): a key with an enrolled passkey votes with a
 * WebAuthn assertion over the `Decision` digest, stored as JSON in the vote's signature. The release
 * verifies it again from the stored row against the stored public key, as it does an address's signature;
 * on a governed vault against the passkey its signed state lists instead (a database writer may have
 * replaced the row's public key).
 */
export interface PasskeyVoteCheck {
  /**
   * Null: key `apiKeyId` has no passkey (its vote is judged as any other). Else whether `signature` is an
   * assertion of that key's passkey over `approval`'s `decision` Decision at the console's origin. With
   * `pinned` (the passkey a governed vault's signed state lists for the key) the assertion is verified
   * against it alone, never the stored row, and the answer is never null.
   */
  verify(approval: Approval, apiKeyId: string, decision: DecisionKind, signature: string | null, pinned?: GovernedPasskey): Promise<boolean | null>;
}
