import { isIP } from 'node:net';

/** One chain's RPC endpoints: one URL, or several that must agree on every value read. */
export type RpcUrls = string | readonly string[];

/** The URLs of one chain's entry, as a list. */
export const rpcUrlList = (urls: RpcUrls): readonly string[] => (typeof urls === 'string' ? [urls] : urls);

/** `https://a, https://b` (VAULT_RPC_URL_<CHAIN>) as its URLs; empty items are dropped. */
export const splitRpcUrls = (value: string): string[] => value.split(',').map((v) => v.trim()).filter((v) => v !== '');

/** 127.0.0.0/8, ::1 and localhost: a plain-http RPC there never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/**
 * Why one chain's URLs cannot be used, or null. An RPC decides what is signed where no uniq is pinned,
 * and its answers over plain http can be rewritten by anyone on the path: http is refused unless the
 * host is loopback or the operator opts in. The same URL twice would look like a second opinion and
 * be none.
 */
export function rpcUrlsProblem(urls: readonly string[], allowHttp: boolean): string | null {
  if (urls.length === 0) return 'must name at least one URL';
  const seen = new Set<string>();
  for (const raw of urls) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'must be an http(s) URL (several: comma-separated)';
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL (several: comma-separated)';
    if (url.protocol === 'http:' && !allowHttp && !isLoopbackHost(url.hostname)) {
      return `http://${url.host} would let anyone on the network path choose the uniq and signer the vault signs for; use https://, or set VAULT_RPC_ALLOW_HTTP=true (createVault: rpcAllowHttp) for a trusted network`;
    }
    if (seen.has(url.href)) return `${url.host} is given twice (a second URL must be a second RPC)`;
    seen.add(url.href);
  }
  return null;
}

/** How an RPC is named in messages: its host only, since a path or user part may carry an API key. */
export const rpcHostOf = (url: string): string => new URL(url).host;
