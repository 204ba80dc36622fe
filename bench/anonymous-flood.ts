import { printTable, runLoad } from './support/load.js';
import { startService } from './support/sign-servers.js';

/**
 * Legitimate signs while a flood of requests without credentials hits the same server (one process,
 * SQLite, local key store): the signs' p99 alone, then with the flood, in the same run. A refused
 * authentication writes nothing of its own (it is summarised per client address, docs/security.md),
 * so the flood costs the server a header check and, for a key that parses, one indexed read.
 * Usage: npm run bench:anonymous-flood [-- seconds [flood-connections]]
 */
const seconds = Number(process.argv[2] ?? 10);
const floodConnections = Number(process.argv[3] ?? 64);
const LEGIT_CONNECTIONS = 4;

const target = await startService();
try {
  const legit = { ...target.request, connections: LEGIT_CONNECTIONS, durationSeconds: seconds };
  const alone = await runLoad({ ...legit, label: 'signs alone' });
  const flood = runLoad({
    label: 'anonymous flood (401s: no key, a wrong key)',
    url: target.request.url,
    method: 'POST',
    // A key that parses but is unknown: the costlier kind of refusal (one lookup).
    headers: { authorization: `Bearer wv_ffffffffffffffff_${'A'.repeat(43)}`, 'content-type': 'application/json' },
    body: '{}',
    connections: floodConnections,
    durationSeconds: seconds,
  });
  const during = runLoad({ ...legit, label: `signs during the flood (${floodConnections} connections)` });
  const [floodResult, duringResult] = await Promise.all([flood, during]);
  printTable([alone, duringResult, floodResult]);
  console.log(`\nsign p99 during / alone = ${(duringResult.p99Ms / Math.max(alone.p99Ms, 1)).toFixed(2)}`);
} finally {
  await target.stop();
}
