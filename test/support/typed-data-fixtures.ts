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
