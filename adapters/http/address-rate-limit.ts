import type { IncomingMessage } from 'node:http';
import { rateLimitKey, type ClientAddressOf } from './client-address.js';
import { RateLimitedError } from './rate-limiter.js';

/** What the per-address guard needs from the HTTP dependencies. */
export interface AddressGuardDeps {
  /** Which address a request counts against; default: the socket's peer (no proxy is trusted). */
  clientAddress?: ClientAddressOf;
  /**
   * Per-client-address limit taken before authentication on every vault route and on Sign (IPv6 per
   * /64, see rateLimitKey); absent: none.
   */
  addressRateLimiter?: { take(address: string): void };
  metrics?: { observeAddressRateLimited?(): void };
}

/** The address the request counts against (VAULT_TRUSTED_PROXIES decides whose X-Forwarded-For counts). */
export function clientAddressOf(deps: AddressGuardDeps, req: IncomingMessage): string {
  return deps.clientAddress ? deps.clientAddress(req) : (req.socket.remoteAddress ?? 'unknown');
}

/**
 * Takes one request from the address's limit, before anything else is done for the request: a flood
 * without credentials is refused here for the price of a map lookup, without a database read or an
 * audit write.
 */
export function takeAddressLimit(deps: AddressGuardDeps, address: string): void {
  if (!deps.addressRateLimiter) return;
  try {
    deps.addressRateLimiter.take(rateLimitKey(address));
  } catch (error) {
    if (error instanceof RateLimitedError) deps.metrics?.observeAddressRateLimited?.();
    throw error;
  }
}

/** Both of the above; returns the address, which authentication reports refusals under. */
export function admitClient(deps: AddressGuardDeps, req: IncomingMessage): string {
  const address = clientAddressOf(deps, req);
  takeAddressLimit(deps, address);
  return address;
}
