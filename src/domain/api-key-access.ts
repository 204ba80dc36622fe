import { invalidArgument } from './errors.js';

/*
 * What an API key may do, beyond naming its vault: the roles it holds and the networks it may call from.
 * Pure (no node:net): the application checks both, so the in-process API and every transport see one rule.
 */

/**
 * `admin`: wallet lifecycle (create, rename, expire, unexpire); `signer`: sign and record submissions;
 * `reader`: wallets, status, submissions; `approver`: reserved for approvals.
 */
export const API_KEY_ROLES = ['admin', 'signer', 'reader', 'approver'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

/** Keys created before roles existed hold every role (the stored column's default); nothing migrates them. */
export const ALL_ROLES: readonly ApiKeyRole[] = API_KEY_ROLES;

/**
 * Keys created without `--roles`: every role but `approver`. A holder of two plain keys (the rotation the
 * docs recommend) must not be able to approve its own request with the second one.
 */
export const DEFAULT_ROLES: readonly ApiKeyRole[] = ['admin', 'signer', 'reader'];

/**
 * Refuses `approver` on one key with `signer` or `admin` unless the operator asked for it: a signer key
 * that also approves is one of the votes on its own requests' siblings, and an admin key can mint itself
 * more keys, each a vote. `allowSignerApprover` is the CLI's `--allow-signer-approver`.
 */
export function checkApproverSeparation(roles: readonly ApiKeyRole[], allowSignerApprover: boolean): void {
  if (allowSignerApprover || !roles.includes('approver')) return;
  const alongside = roles.filter((r) => r === 'signer' || r === 'admin');
  if (alongside.length === 0) return;
  throw invalidArgument(
    `roles: approver with ${alongside.join(' and ')} on one key needs allowSignerApprover (CLI --allow-signer-approver); give approvers keys of their own`,
  );
}

const isRole = (text: string): text is ApiKeyRole => (API_KEY_ROLES as readonly string[]).includes(text);

/** `signer,reader` (commas or spaces) as roles, in API_KEY_ROLES order without repeats; throws naming an unknown role. */
export function parseRoles(text: string): ApiKeyRole[] {
  const given = text.split(/[\s,]+/).filter((r) => r !== '');
  if (given.length === 0) throw invalidArgument(`roles: at least one of ${API_KEY_ROLES.join(', ')}`);
  for (const role of given) {
    if (!isRole(role)) throw invalidArgument(`roles: "${role}" is not one of ${API_KEY_ROLES.join(', ')}`);
  }
  return API_KEY_ROLES.filter((r) => given.includes(r));
}

/**
 * A network an API key may call from. Every address is held as 128 bits, IPv4 as its IPv4-mapped IPv6
 * form (`::ffff:a.b.c.d`), so `10.0.0.0/8` also matches a client seen as `::ffff:10.1.2.3` and an IPv6
 * range never matches an IPv4 client by accident (unless it covers `::ffff:0:0/96`).
 */
export interface Cidr {
  /** As given, for display (`10.0.0.0/8`). */
  readonly text: string;
  readonly network: bigint;
  /** Of the 128 bits (an IPv4 /8 is 104). */
  readonly prefix: number;
}

const MAPPED_IPV4 = 0xffff00000000n;

/** `10.0.0.0/8,192.0.2.7/32 2001:db8::/32`: a bare address is its /32 or /128. Throws naming the first bad entry. */
export function parseCidrs(text: string): Cidr[] {
  const entries = text.split(/[\s,]+/).filter((e) => e !== '');
  if (entries.length === 0) throw invalidArgument('allow-cidrs: at least one address or CIDR range');
  return entries.map(parseCidr);
}

function parseCidr(text: string): Cidr {
  const bad = (why: string) => invalidArgument(`allow-cidrs: "${text}" ${why}`);
  const [address = '', prefixText, extra] = text.split('/');
  const v4 = !address.includes(':');
  const value = v4 ? ipv4(address) : ipv6(address);
  if (value === undefined || extra !== undefined) throw bad('is not an IP address or CIDR range');
  const width = v4 ? 32 : 128;
  if (prefixText !== undefined && !/^(0|[1-9]\d{0,2})$/.test(prefixText)) throw bad('has no prefix length');
  const own = prefixText === undefined ? width : Number(prefixText);
  if (own > width) throw bad(`has a prefix longer than ${width} bits`);
  const prefix = v4 ? 96 + own : own;
  const network = v4 ? MAPPED_IPV4 | value : value;
  // A range with host bits set (10.0.0.1/8) is a typo more often than a wish: refused, not widened.
  if (network !== masked(network, prefix)) throw bad('has bits set past its prefix length');
  return { text: text.toLowerCase(), network, prefix };
}

/** Whether `address` (a client address: IPv4, IPv6, IPv4-mapped IPv6, with or without a zone) lies in any range. */
export function addressInCidrs(address: string, cidrs: readonly Cidr[]): boolean {
  const value = addressValue(address);
  if (value === undefined) return false; // `unknown` or anything else that is no address: from nowhere allowed
  return cidrs.some((c) => masked(value, c.prefix) === c.network);
}

function addressValue(address: string): bigint | undefined {
  if (!address.includes(':')) {
    const v = ipv4(address);
    return v === undefined ? undefined : MAPPED_IPV4 | v;
  }
  return ipv6(address.split('%')[0]!);
}

function masked(value: bigint, prefix: number): bigint {
  const host = BigInt(128 - prefix);
  return (value >> host) << host;
}

function ipv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function ipv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = groupsOf(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1]!, true) : [];
  if (head === undefined || tail === undefined) return undefined;
  const count = head.length + tail.length;
  if (halves.length === 1 ? count !== 8 : count > 7) return undefined;
  const groups = [...head, ...Array<bigint>(8 - count).fill(0n), ...tail];
  return groups.reduce((v, g) => (v << 16n) | g, 0n);
}

/** The 16-bit groups of one side of `::`; the last may be a dotted IPv4 address (two groups) when `last`. */
function groupsOf(text: string, last: boolean): bigint[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: bigint[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (last && i === parts.length - 1 && part.includes('.')) {
      const v4 = ipv4(part);
      if (v4 === undefined) return undefined;
      groups.push(v4 >> 16n, v4 & 0xffffn);
    } else if (/^[0-9a-f]{1,4}$/i.test(part)) groups.push(BigInt(`0x${part}`));
    else return undefined;
  }
  return groups;
}
