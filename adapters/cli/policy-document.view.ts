import { describeEffect, type PolicyDocument, type PolicyLimit } from '../../src/domain/policy/policy-document.js';

/** `10 signs and 1000000000000000000 wei`, `5000000 of token 0x…`: what a limit allows per window. */
const limitAmounts = (l: PolicyLimit): string =>
  [
    l.maxSigns === undefined ? null : `${l.maxSigns} sign${l.maxSigns === 1 ? '' : 's'}`,
    l.maxValue === undefined ? null : `${l.maxValue} ${l.token === undefined ? 'wei' : `of token ${l.token}`}`,
    l.maxValueUsd === undefined ? null : `${l.maxValueUsd} USD ${l.token === undefined ? 'of the native unit' : `of token ${l.token}`}`,
  ]
    .filter((part) => part !== null)
    .join(' and ');

/**
 * `key value; key value`: every field of a rule or limit but those its line shows otherwise (`shown`).
 * Nothing else is left out: an operator reading `policies show` sees the whole document (a view that
 * picks fields drops the next one added, as it once dropped a rule's `maxValue` and `description`). Free text is quoted, so a `;` in it reads as text.
 */
const fields = (entry: object, shown: readonly string[]) =>
  Object.entries(entry)
    .filter(([key]) => !shown.includes(key))
    // The free text last, so the filters read first as they always have.
    .sort(([a], [b]) => Number(a === 'description') - Number(b === 'description'))
    .map(([key, value]) => `${key} ${typeof value === 'boolean' || (typeof value === 'string' && key !== 'description') ? value : JSON.stringify(value)}`)
    .join('; ');

const RULE_SHOWN = ['id', 'effect'];
const LIMIT_SHOWN = ['id', 'maxSigns', 'maxValue', 'maxValueUsd', 'token', 'per', 'each'];

/** One line a rule, one a limit: `  deny      r1  kinds call; function …; unless args[1] lte 1000`; the document's version first. */
export function describeDocument(document: PolicyDocument): string {
  return [
    `  ${'version'.padEnd(16)} ${document.version}`,
    ...document.rules.map((r) => `  ${describeEffect(r.effect).padEnd(16)} ${r.id.padEnd(20)} ${fields(r, RULE_SHOWN) || 'every request'}`),
    ...document.limits.map((l) => {
      const rest = fields(l, LIMIT_SHOWN);
      return `  ${'limit'.padEnd(16)} ${l.id.padEnd(20)} at most ${limitAmounts(l)} per ${l.per}${l.each ? ` for each ${l.each}` : ''}${rest ? `; ${rest}` : ''}`;
    }),
    ...Object.entries(document.uniqs ?? {}).map(([contract, uniq]) => `  ${'uniq of'.padEnd(16)} ${contract} = ${uniq}`),
    ...(document.trustRpcUniq ?? []).map((contract) => `  ${'RPC trusted'.padEnd(16)} ${contract}`),
    ...Object.entries(document.contractNames ?? {}).map(([contract, name]) => `  ${'name of'.padEnd(16)} ${contract} = ${JSON.stringify(name)}`),
    ...Object.entries(document.prices ?? {}).map(([asset, price]) => `  ${'price of'.padEnd(16)} ${asset} = ${price.usd} USD`),
    ...Object.entries(document.priceFeeds ?? {}).map(([asset, f]) => `  ${'price feed of'.padEnd(16)} ${asset} = ${f.feed} (at most ${f.maxAgeSeconds} s old)`),
    ...Object.entries(document.tokens ?? {}).map(([token, t]) => `  ${'token'.padEnd(16)} ${token} = ${JSON.stringify(t.symbol)}, ${t.decimals} decimals`),
    ...Object.entries(document.addressNames ?? {}).map(([address, name]) => `  ${'address name'.padEnd(16)} ${address} = ${JSON.stringify(name)}`),
    // What `policies approvals add` asked, kept for `policies set` to hold it again within new lists; the holds above decide.
    ...(document.approvalRules ?? []).map((r) => `  ${'approval rule'.padEnd(16)} ${r.id.padEnd(20)} ${describeEffect(r.effect)} within the allow rules; ${fields(r, RULE_SHOWN) || 'every request'}`),
  ].join('\n');
}
