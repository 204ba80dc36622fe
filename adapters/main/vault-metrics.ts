import { MeteredKeyStore } from '../metrics/metered.key-store.js';
import { PrometheusMetrics } from '../metrics/prometheus.metrics.js';
import type { VaultOptions } from './vault-options.js';

/**
 * The standalone server's Prometheus series for an application that embeds the vault:
 * `createVault({ metrics: true })` (or a `prometheusMetrics()` of yours) times the key stores and counts
 * the background jobs, refused authentications, webhook deliveries and invalid votes into one registry,
 * and `vaultRouter(vault, { metrics: true })` counts the requests and serves `GET /metrics` from it, so
 * the shipped alert rules (docs/prometheus) work for an embedded vault as for the server.
 */
export type VaultMetrics = PrometheusMetrics;

/** A registry of the service's series; `processMetrics: false` leaves out Node's process series (default true). */
export function prometheusMetrics(options: { version?: string; processMetrics?: boolean } = {}): VaultMetrics {
  return new PrometheusMetrics({ version: options.version ?? 'unknown', ...(options.processMetrics === undefined ? {} : { processMetrics: options.processMetrics }) });
}

/**
 * The options with `metrics` resolved: the registry (made for `true`), the key stores timed by it and
 * every observer it implements set where the caller gave none of their own.
 */
export function withVaultMetrics(options: VaultOptions): VaultOptions & { readonly metrics?: VaultMetrics } {
  if (options.metrics === undefined || options.metrics === false) return { ...options, metrics: undefined };
  const metrics = options.metrics === true ? prometheusMetrics({ version: options.version ?? 'unknown' }) : options.metrics;
  return {
    ...options,
    metrics,
    ...(options.keyStores ? { keyStores: options.keyStores.map((s) => (s instanceof MeteredKeyStore ? s : new MeteredKeyStore(s, metrics))) } : {}),
    jobMetrics: options.jobMetrics ?? metrics,
    authRefused: options.authRefused ?? metrics,
    webhookMetrics: options.webhookMetrics ?? metrics,
    invalidVotes: options.invalidVotes ?? metrics,
  };
}
