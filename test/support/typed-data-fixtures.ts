import type { TypedDataDefinition } from 'viem';

/** EIP-2612's Permit struct, as ERC20Permit tokens sign it. */
export const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

/** An EIP-2612 permit of `domain`, as viem's signTypedData takes it. */
export function permit(
  domain: TypedDataDefinition['domain'],
  message: { owner: string; spender: string; value: bigint; nonce: bigint; deadline: bigint },
): TypedDataDefinition {
  return { domain, types: PERMIT_TYPES, primaryType: 'Permit', message };
}

/** A value as a JSON body carries it: bigints as decimal strings. */
export const asJson = (value: unknown) => JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));

/** Permit2 (Uniswap's), where batch permits are signed: the same address on every chain. */
export const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3';

/** Permit2's PermitBatch: one PermitDetails (token, amount, expiration, nonce) per token, then spender and sigDeadline. */
export const PERMIT_BATCH_TYPES = {
  PermitBatch: [
    { name: 'details', type: 'PermitDetails[]' },
    { name: 'spender', type: 'address' },
    { name: 'sigDeadline', type: 'uint256' },
  ],
  PermitDetails: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint160' },
    { name: 'expiration', type: 'uint48' },
    { name: 'nonce', type: 'uint48' },
  ],
} as const;

/**
 * A Permit2 PermitBatch (JSON as a body carries it) of `amounts.length` entries, each of `token` and its
 * amount, for `spender`: 4 fields per entry, then spender and sigDeadline.
 */
export function permitBatch(o: { token: string; amounts: readonly bigint[]; spender: string; chainId?: number }) {
  return asJson({
    domain: { name: 'Permit2', chainId: o.chainId ?? 1, verifyingContract: PERMIT2 },
    types: PERMIT_BATCH_TYPES,
    primaryType: 'PermitBatch',
    message: {
      details: o.amounts.map((amount, i) => ({ token: o.token, amount, expiration: 1_798_761_600n, nonce: BigInt(i) })),
      spender: o.spender,
      sigDeadline: 1_798_761_600n,
    },
  });
}
