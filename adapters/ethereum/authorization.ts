import { encodeRlp, toBeArray } from 'ethers';
import { keccak256 } from '../../src/domain/keccak.js';
import type { AuthorizationInput } from '../../src/domain/signing/kinds/authorization/authorization.input.js';
import type { AuthorizationDigest } from '../../src/ports/standard-payloads.port.js';

/**
 * The EIP-7702 authorization digest: keccak256(0x05 ‖ rlp([chainId, address, nonce])), with the domain's
 * keccak. `chainId` 0 is an authorization valid on every chain (the policy lets it through only with a
 * rule's `anyChain`).
 */
export function authorizationDigest(facts: AuthorizationInput): AuthorizationDigest {
  const { chainId, address, nonce } = facts;
  const rlp = encodeRlp([chainId === 0n ? '0x' : toBeArray(chainId), address, nonce === 0n ? '0x' : toBeArray(nonce)]);
  return { digest: keccak256(Buffer.concat([Buffer.of(0x05), Buffer.from(rlp.slice(2), 'hex')])), facts };
}
