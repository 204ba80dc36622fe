import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

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
 * The key an address is rate-limited under: an IPv4 address itself, an IPv6 address's /64 network.
 * One IPv6 host usually holds a whole /64 and can send from any address in it, so a limit per /128
 * would be no limit at all.
 */
export function rateLimitKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const bare = address.split('%')[0]!.toLowerCase();
  const [head = '', tail] = bare.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 address (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) fills the last two groups.
  const width = (g: string[]) => g.reduce((n, x) => n + (x.includes('.') ? 2 : 1), 0);
  const full = [...h, ...Array<string>(Math.max(0, 8 - width(h) - width(t))).fill('0'), ...t];
  return `${full
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
