import { keccak256 } from './keccak.js';
import type { Approval } from './approval.js';

/** What a held request's seal covers: every column of its approval row that is not recomputed from the signed policy at the release. */
export type SealedFields = Pick<Approval, 'id' | 'vaultId' | 'requester' | 'created' | 'expires' | 'requestHash'>;

/**
 * 0x19 0x57, as the wallet binding frames its digest (src/domain/wallet-binding.ts says why no signing
 * route can produce such a preimage), then a tag of its own: a seal and a binding never share a digest.
 */
const PREFIX = Uint8Array.of(0x19, 0x57);
const TAG = new TextEncoder().encode('wallet-vault held request seal');
const encoder = new TextEncoder();

/**
 * The digest the held request's wallet signs when the request is held: keccak256(0x19 ‖ 0x57 ‖ "wallet-vault
 * held request seal" ‖ keccak256(approval id) ‖ keccak256(vault id) ‖ keccak256(requester key id) ‖ created
 * (ms, 8 bytes) ‖ expires (ms, 8 bytes) ‖ requestHash (32 bytes)). Text is hashed to fixed widths and times
 * written at a fixed width, so the encoding is injective.
 *
 * Why: the votes sign the requestHash and the release decides the stored request again with the verified
 * policy, but who asked (the key that can never vote on its own request, and whose revocation stops the
 * release) and until when votes are taken are the row's. A database writer cannot make this signature, so
 * neither can be rewritten unnoticed.
 */
export function heldRequestSealDigest(fields: SealedFields): Uint8Array {
  const hash = Buffer.from(fields.requestHash.toLowerCase().replace(/^0x/, ''), 'hex');
  if (hash.length !== 32) throw new Error('heldRequestSealDigest: the requestHash must be 32 bytes of hex');
  const text = (value: string) => keccak256(encoder.encode(value));
  const time = (at: Date) => {
    const ms = at.getTime();
    if (!Number.isSafeInteger(ms) || ms < 0) throw new Error('heldRequestSealDigest: a time must be a valid date after 1970');
    const out = Buffer.alloc(8);
    out.writeBigUInt64BE(BigInt(ms));
    return out;
  };
  return keccak256(Buffer.concat([PREFIX, TAG, text(fields.id), text(fields.vaultId), text(fields.requester), time(fields.created), time(fields.expires), hash]));
}
