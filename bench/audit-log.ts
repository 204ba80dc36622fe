import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeCommitQueueOf } from '../adapters/persistence/sqlite/sqlite.commit-queue.js';
import { openSqliteDatabase } from '../adapters/persistence/sqlite/sqlite.database.js';
import type { AuditEvent } from '../src/ports/audit-log.port.js';
import { SqlAuditLog } from '../adapters/persistence/sql/sql.audit-log.js';
import { sqliteSql } from '../adapters/persistence/sqlite/sqlite.sql.js';

/**
 * Audit appends per second into SQLite (WAL, synchronous=FULL) with 1, 32 and 256 concurrent appenders,
 * each awaiting its append before the next, as signs do. Group commit shares one fsync among the appends
 * of one event-loop turn, so throughput should grow with concurrency. Storage only: no HTTP, no signing.
 * Usage: npm run bench:audit-log [-- seconds per scenario]
 */
const seconds = Number(process.argv[2] ?? 5);

const event = (i: number): AuditEvent => ({
  action: 'signature.issued',
  at: new Date(),
  actor: 'api-key:0123456789abcdef',
  vaultId: '0190f0c1-7a7b-7c3d-8e9f-0123456789ab',
  subject: `0x${i.toString(16).padStart(64, '0')}`,
  details: { chain: 'sepolia', contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3', selector: '0xa9059cbb', wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
});

async function scenario(appenders: number): Promise<{ appenders: number; perSecond: number; p50Ms: number; p99Ms: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-bench-audit-'));
  const db = openSqliteDatabase({ path: path.join(dir, 'vault.db') });
  const log = new SqlAuditLog(sqliteSql(db));
  const latencies: number[] = [];
  let n = 0;
  const until = Date.now() + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: appenders }, async () => {
        while (Date.now() < until) {
          const start = process.hrtime.bigint();
          await log.append(event(n++));
          latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
        }
      }),
    );
  } finally {
    // The commit queue's WAL checkpointer is a worker thread: closed with the queue, or the process never exits.
    await closeCommitQueueOf(db);
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { appenders, perSecond: Math.round(latencies.length / seconds), p50Ms: at(0.5), p99Ms: at(0.99) };
}

console.log(`audit log appends, ${seconds} s per scenario`);
console.log('| appenders | appends/s | p50 ms | p99 ms |');
console.log('|---|---|---|---|');
for (const appenders of [1, 32, 256]) {
  const r = await scenario(appenders);
  console.log(`| ${r.appenders} | ${r.perSecond} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} |`);
}
