import { isLoopbackHost } from '../chain/rpc-urls.js';

/**
 * Why a URL cannot receive webhooks, or null: https only, since a delivery names the vault's signatures
 * and wallets; plain http only to a loopback host (development, tests), where it never leaves the machine.
 */
export function webhookUrlProblem(url: URL): string | null {
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname) ? null : `http://${url.host} is refused: use https:// (plain http only to a loopback host)`;
  return 'must be an https:// URL';
}
