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

/**
 * Resolves the client's address and takes one request from its limit, before anything else is done for
 * the request: a flood without credentials is refused here for the price of a map lookup, without a
 * database read or an audit write. Returns the address, which authentication reports refusals under.
 */
export function admitClient(deps: AddressGuardDeps, req: IncomingMessage): string {
  const address = deps.clientAddress ? deps.clientAddress(req) : (req.socket.remoteAddress ?? 'unknown');
  if (deps.addressRateLimiter) {
    try {
      deps.addressRateLimiter.take(rateLimitKey(address));
    } catch (error) {
      if (error instanceof RateLimitedError) deps.metrics?.observeAddressRateLimited?.();
      throw error;
    }
  }
  return address;
}
