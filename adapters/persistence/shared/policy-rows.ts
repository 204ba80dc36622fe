import type { SignPolicy } from '../../../src/domain/sign-policy.js';

/**
 * A stored policy: the lists and the argument rules as one JSON text, the uniq pins as rows of their own
 * (checked by the database).
 */
export interface PolicyRows {
  readonly json: string;
  readonly pins: readonly { readonly contract: string; readonly uniq: string }[];
}

export function toPolicyRows(policy: SignPolicy): PolicyRows {
  const { uniqs, ...lists } = policy;
  return { json: JSON.stringify(lists), pins: Object.entries(uniqs ?? {}).map(([contract, uniq]) => ({ contract, uniq })) };
}

export function fromPolicyRows(json: string, pins: readonly { contract: string; uniq: string }[]): SignPolicy {
  const lists = JSON.parse(json) as SignPolicy;
  if (pins.length === 0) return lists;
  return { ...lists, uniqs: Object.fromEntries(pins.map((p) => [p.contract, p.uniq])) };
}
