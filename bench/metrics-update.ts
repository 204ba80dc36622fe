import { PrometheusMetrics } from '../adapters/metrics/prometheus.metrics.js';

/**
 * What the metrics cost one sign: the updates a signed request makes (its request counter and duration,
 * the key store's sign duration and the signature counter), in ns per request, against the label sets a
 * busy server sees (a few routes and statuses, two key stores). The best of several rounds, so a busy
 * neighbour on a shared machine inflates it less; compare builds by running it in each.
 * Usage: npm run bench:metrics-update [-- rounds updates-per-round]
 */
const rounds = Number(process.argv[2] ?? 15);
const perRound = Number(process.argv[3] ?? 200_000);

const metrics = new PrometheusMetrics({ version: 'bench', processMetrics: false });
const routes = ['/v1/wallets/:address/sign', '/v1/wallets', '/v1/wallets/:address'];
const statuses = [200, 200, 200, 404, 422];
const stores = ['local-file', 'vault-transit'];

function round(): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < perRound; i++) {
    const seconds = (i % 97) / 10_000;
    metrics.observeKeyStore(stores[i & 1]!, 'sign', true, seconds);
    metrics.observeRequest('POST', routes[i % 3]!, statuses[i % 5]!, seconds * 2);
  }
  return Number(process.hrtime.bigint() - start) / perRound;
}

round(); // warm-up: the series exist and the code is optimised before measuring
const figures = Array.from({ length: rounds }, round).sort((a, b) => a - b);
const exposition = await metrics.exposition();
console.log(
  `metrics per signed request: best ${figures[0]!.toFixed(1)} ns, median ${figures[Math.floor(rounds / 2)]!.toFixed(1)} ns ` +
    `(${rounds} rounds of ${perRound}; exposition ${exposition.text.length} characters)`,
);
