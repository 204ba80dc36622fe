import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { UnreadableCredential } from '../../src/application/access/authenticate.use-case.js';

/*
 * Who is asking, as the request says it: the client's address (the socket's peer, or what trusted
 * proxies vouch for) and the API key of its `Authorization` header. Whether either is admitted is
 * decided after (the rate limits, the Authenticate use case).
 */

/** Resolves which address a request counts against (the per-address limit, the refused-auth summary). */
export type ClientAddressOf = (req: IncomingMessage) => string;

/**
 * Parses VAULT_TRUSTED_PROXIES: addresses and CIDR ranges (`10.0.0.0/8`, `::1`, `fd00::/8`), separated
 * by commas or spaces. Throws naming the first entry that is neither.
 */
export function parseTrustedProxies(text: string): string[] {
  const entries = text.split(/[\s,]+/).filter((e) => e !== '');
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixOk || extra !== undefined) throw new Error(`"${entry}" is not an IP address or CIDR range`);
  }
  return entries;
}

/** What the HTTP dependencies say about client addresses. */
export interface ClientAddressDeps {
  /** Which address a request counts against; default: the socket's peer (no proxy is trusted). */
  clientAddress?: ClientAddressOf;
}

/** The address the request counts against (VAULT_TRUSTED_PROXIES decides whose X-Forwarded-For counts). */
export function clientAddressOf(deps: ClientAddressDeps, req: IncomingMessage): string {
  return deps.clientAddress ? deps.clientAddress(req) : (req.socket.remoteAddress ?? 'unknown');
}

/**
 * The client's address. With no trusted proxy (the default) it is the socket's peer, whatever the
 * request's headers say: anyone can write X-Forwarded-For. When the peer is a trusted proxy, its
 * X-Forwarded-For is believed, read from the right (the entry the nearest proxy appended) past every
 * further trusted proxy; the first untrusted entry is the client. A proxy can vouch only for the hop
 * before it, so entries left of an untrusted one are never believed.
 */
export function clientAddressResolver(trustedProxies: readonly string[] = []): ClientAddressOf {
  if (trustedProxies.length === 0) return (req) => normalise(req.socket.remoteAddress);
  const trusted = new BlockList();
  for (const entry of trustedProxies) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) trusted.addAddress(address, type);
    else trusted.addSubnet(address, Number(prefix), type);
  }
  const isTrusted = (address: string) => {
    const family = isIP(address);
    return family !== 0 && trusted.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
  return (req) => {
    let client = normalise(req.socket.remoteAddress);
    if (!isTrusted(client)) return client;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((h) => normalise(h.trim()));
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (isIP(hop) === 0) break; // not an address: nothing further left can be believed
      client = hop;
      if (!isTrusted(hop)) break;
    }
    return client;
  };
}

/** `::ffff:10.0.0.1` (IPv4 on a dual-stack socket) counts as `10.0.0.1`. */
function normalise(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/**
 * The API key of `Authorization: Bearer <key>`, or why the header holds none (missing, malformed, another
 * scheme), in the words the interface has always used: the use case counts the refusal, the wording is HTTP's.
 */
export function bearerCredential(authorization: string | undefined): string | UnreadableCredential {
  if (authorization === undefined || authorization.trim() === '') {
    return { reason: 'missing_header', message: 'missing Authorization header (expected "Bearer <API key>")' };
  }
  const match = /^(\S+)\s+(\S+)$/.exec(authorization.trim());
  if (!match) return { reason: 'malformed_header', message: 'malformed Authorization header (expected "Bearer <API key>")' };
  if (match[1]!.toLowerCase() !== 'bearer') return { reason: 'not_bearer', message: 'Authorization must use the Bearer scheme' };
  return match[2]!;
}
