import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../adapters/main/tokens.js';
import type { AuditLog, AuditRecord } from '../../src/ports/audit-log.port.js';
import { startOtlpReceiver, startSyslogReceiver, type Received } from '../support/audit-receivers.js';
import { cliJson } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';
import { sqlSessionOn } from '../support/sql-session.js';
import { localSignBody } from '../support/sign-request.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { until } from '../support/webhook-receiver.js';

type Dialect = 'sqlite' | 'postgres';

/** A data directory (and on PostgreSQL a database) that outlives one server: restarts run over it. */
async function storage(dialect: Dialect) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-audit-stream-'));
  const db: TestDatabase | undefined = dialect === 'postgres' ? await createTestDatabase() : undefined;
  return {
    dataDir,
    env: db ? { VAULT_DATABASE_URL: db.url, VAULT_DATABASE_POOL_SIZE: '4' } : ({} as Record<string, string>),
    remove: async () => {
      await db?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}


const trailOf = async (s: TestServer): Promise<AuditRecord[]> => s.server.vault.container.get<AuditLog>(TOKENS.AUDIT_LOG).list({ afterSeq: 0, limit: 1000 });

/** What arrived is the trail: every seq once, in order, with its hash and the hash before it. */
function expectTrail(received: readonly Received[], trail: readonly AuditRecord[]): void {
  expect(received.map((r) => r.seq)).toEqual(trail.map((r) => r.seq));
  expect(received.map((r) => [r.hash, r.prevHash, r.action])).toEqual(trail.map((r) => [r.hash, r.prevHash, r.action]));
}

async function vaultWithWallet(s: TestServer) {
  const vault = await s.createVault({ name: 'streamed' });
  const { apiKey } = await s.createApiKey(vault.id);
  const api = client(s.url, apiKey);
  const base = `/api/v1/vaults/${vault.id}`;
  const created = await api.post(`${base}/wallets`, { name: 'w' });
  expect(created.status).toBe(200);
  return { api, base, address: created.body.data.address as string };
}

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];

describe.each(DIALECTS)('audit streaming (%s)', (dialect) => {
  it('sends every record to a TCP syslog listener and an OTLP receiver in seq order; a receiver down loses nothing, and a restart resumes after the cursor', async () => {
    const store = await storage(dialect);
    const syslog = await startSyslogReceiver('tcp');
    let otlp = await startOtlpReceiver();
    const otlpPort = otlp.port;
    const collected: Received[] = [];
    const env = { ...store.env, VAULT_AUDIT_SYSLOG_URL: syslog.url, VAULT_AUDIT_OTLP_URL: otlp.url };
    let s: TestServer | undefined;
    try {
      s = await startTestServer({ env, dataDir: store.dataDir });
      const { api, base, address } = await vaultWithWallet(s);
      for (let i = 0; i < 3; i++) expect((await api.post(`${base}/sign`, localSignBody(address, { uniq: `0x${String(i + 1).padStart(64, '0')}` }))).status).toBe(200);
      let trail = await trailOf(s);
      expect(trail.map((r) => r.action)).toContain('signature.issued');
      await until(() => syslog.received.length >= trail.length && otlp.received.length >= trail.length, 'the trail at both sinks');
      expectTrail(syslog.received, trail);
      expectTrail(otlp.received, trail);

      // The OTLP receiver goes away: writes still succeed (no VAULT_AUDIT_REQUIRE_SINK), syslog keeps up.
      collected.push(...otlp.received);
      await otlp.close();
      for (let i = 0; i < 3; i++) expect((await api.post(`${base}/wallets`, { name: `during-${i}` })).status).toBe(200);
      trail = await trailOf(s);
      await until(() => syslog.received.length >= trail.length, 'syslog during the OTLP outage');
      expectTrail(syslog.received, trail);
      // Back on its port: what was written meanwhile arrives, after what it had, nothing twice.
      otlp = await startOtlpReceiver(otlpPort);
      await until(() => collected.length + otlp.received.length >= trail.length, 'the OTLP backlog after the outage', 30_000);
      expectTrail([...collected, ...otlp.received], trail);

      // A restart resumes after each sink's cursor: nothing already delivered is sent again.
      await s.stop({ keepData: true });
      s = undefined;
      collected.push(...otlp.received);
      otlp.received.length = 0;
      s = await startTestServer({ env, dataDir: store.dataDir });
      expect((await client(s.url, (await s.createApiKey((await s.createVault({ name: 'after' })).id)).apiKey).get('/healthz')).status).toBe(200);
      trail = await trailOf(s);
      await until(() => syslog.received.length >= trail.length && collected.length + otlp.received.length >= trail.length, 'the records after the restart');
      expectTrail(syslog.received, trail);
      expectTrail([...collected, ...otlp.received], trail);

      // A replay from seq 2 for the OTLP sink: the instance streaming sends from there on again, syslog nothing.
      const before = syslog.received.length;
      otlp.received.length = 0;
      const replay = await cliJson<{ sinks: string[]; fromSeq: number }>(['audit', 'stream', '--from-seq', '2', '--sink', 'otlp'], { ...env, VAULT_DATA_DIR: store.dataDir });
      expect(replay).toEqual({ sinks: ['otlp'], fromSeq: 2 });
      await until(() => otlp.received.length >= trail.length - 1, 'the replay');
      expectTrail(otlp.received, trail.slice(1));
      expect(syslog.received.length).toBe(before);
    } finally {
      await s?.stop({ keepData: true });
      await syslog.close();
      await otlp.close();
      await store.remove();
    }
  });

  it('with VAULT_AUDIT_REQUIRE_SINK refuses writes with 503 AUDIT_SINK_UNAVAILABLE while no sink accepts records, writing nothing, and accepts them once one does', async () => {
    const store = await storage(dialect);
    // A port nothing listens on (taken, then freed), for the receiver that comes later.
    const probe = await startOtlpReceiver();
    const port = probe.port;
    await probe.close();
    const env = { ...store.env, VAULT_AUDIT_OTLP_URL: `http://127.0.0.1:${port}/v1/logs`, VAULT_AUDIT_REQUIRE_SINK: 'true', VAULT_METRICS_TOKEN: 'metrics-token-for-the-test' };
    let s: TestServer | undefined;
    let otlp: Awaited<ReturnType<typeof startOtlpReceiver>> | undefined;
    try {
      s = await startTestServer({ env, dataDir: store.dataDir });
      const vault = await s.createVault({ name: 'fail-closed' });
      const { apiKey } = await s.createApiKey(vault.id);
      const api = client(s.url, apiKey);
      const base = `/api/v1/vaults/${vault.id}`;
      const head = (await trailOf(s)).length;
      const refused = await api.post(`${base}/wallets`, { name: 'refused' });
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('AUDIT_SINK_UNAVAILABLE');
      // Nothing half-written: no wallet, no record.
      const wallets = await api.get(`${base}/wallets`);
      // Reads are served.
      expect(wallets.status).toBe(200);
      expect(wallets.body.data.count).toBe(0);
      expect((await trailOf(s)).length).toBe(head);
      const metrics = await client(s.url, 'metrics-token-for-the-test').get('/metrics');
      expect(metrics.body as string).toMatch(/wallet_vault_audit_sink_up\{sink="otlp"\} 0/);
      expect(metrics.body as string).toMatch(/wallet_vault_audit_sink_refused_writes_total 1\b/);
      // The admin API's changes, the seal's routes and the console's writes record audit too: refused alike,
      // the admin API's after the operator's credential is checked; its reads are served.
      const { credential } = await s.server.vault.manageOperators.create({ name: 'alice', roles: 'vault-admin' });
      const admin = client(s.url, credential);
      // Made in-process, as the CLI's operator commands are (never refused): its record is written.
      const withOperator = (await trailOf(s)).length;
      const adminWrite = await admin.post('/api/v1/admin/vaults', { name: 'refused' });
      expect([adminWrite.status, adminWrite.body.code]).toEqual([503, 'AUDIT_SINK_UNAVAILABLE']);
      expect((await client(s.url, 'wvop_0000000000000000_' + 'A'.repeat(43)).post('/api/v1/admin/vaults', { name: 'x' })).status).toBe(401);
      expect((await admin.get('/api/v1/admin/vaults')).status).toBe(200);
      const sealed = await client(s.url, 'metrics-token-for-the-test').post('/api/v1/sys/seal', {});
      expect([sealed.status, sealed.body.code]).toEqual([503, 'AUDIT_SINK_UNAVAILABLE']);
      const unseal = await client(s.url).post('/api/v1/sys/unseal', { share: 'x' });
      expect([unseal.status, unseal.body.code]).toEqual([503, 'AUDIT_SINK_UNAVAILABLE']);
      const console = await client(s.url).post('/console/api/session/options', {});
      expect([console.status, console.body.code]).toEqual([503, 'AUDIT_SINK_UNAVAILABLE']);
      expect((await s.server.vault.manageVaults.list()).map((v) => v.name)).toEqual(['fail-closed']);
      expect((await trailOf(s)).length).toBe(withOperator);

      otlp = await startOtlpReceiver(port);
      await until(async () => (await api.post(`${base}/wallets`, { name: 'accepted' })).status === 200, 'a write accepted once the receiver is back', 30_000);
      const trail = await trailOf(s);
      await until(() => otlp!.received.length >= trail.length, 'the trail at the receiver');
      expectTrail(otlp.received, trail);
    } finally {
      await s?.stop({ keepData: true });
      await otlp?.close();
      await store.remove();
    }
  });

  it('sends to a UDP syslog listener, one RFC 5424 message per record', async () => {
    const store = await storage(dialect);
    const syslog = await startSyslogReceiver('udp');
    let s: TestServer | undefined;
    try {
      s = await startTestServer({ env: { ...store.env, VAULT_AUDIT_SYSLOG_URL: syslog.url }, dataDir: store.dataDir });
      await vaultWithWallet(s);
      const trail = await trailOf(s);
      await until(() => syslog.received.length >= trail.length, 'the trail over UDP');
      expectTrail(syslog.received, trail);
      expect(syslog.received[0]!.raw).toMatch(/^<110>1 \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \S+ wallet-vault \d+ vault\.created \[audit@32473 seq="1" /);
    } finally {
      await s?.stop({ keepData: true });
      await syslog.close();
      await store.remove();
    }
  });

  it("residual: a sink's cursor moved forward by SQL skips the records in between for that sink (the receiver sees the seq and prevHash gap); audit stream --from-seq sends them", async () => {
    const store = await storage(dialect);
    const syslog = await startSyslogReceiver('tcp');
    const env = { ...store.env, VAULT_AUDIT_SYSLOG_URL: syslog.url };
    let s: TestServer | undefined;
    try {
      s = await startTestServer({ env, dataDir: store.dataDir });
      await vaultWithWallet(s);
      let trail = await trailOf(s);
      await until(() => syslog.received.length >= trail.length, 'the trail before the move');
      const head = trail.at(-1)!.seq;
      await s.stop({ keepData: true });
      s = undefined;

      // The writer moves the syslog cursor 3 records past the head, while no instance runs.
      const writer = await sqlSessionOn(store.dataDir, dialect === 'postgres' ? store.env.VAULT_DATABASE_URL : undefined);
      try {
        await writer.run('UPDATE audit_stream_cursors SET delivered_seq = ? WHERE sink = ?', [head + 3, 'syslog']);
      } finally {
        await writer.close();
      }
      s = await startTestServer({ env, dataDir: store.dataDir });
      const { api: after, base: afterBase } = await vaultWithWallet(s);
      for (let i = 0; i < 3; i++) expect((await after.post(`${afterBase}/wallets`, { name: `after-${i}` })).status).toBe(200);
      trail = await trailOf(s);
      const skipped = trail.filter((r) => r.seq > head && r.seq <= head + 3);
      expect(skipped).toHaveLength(3);
      const kept = trail.filter((r) => r.seq <= head || r.seq > head + 3);
      await until(() => syslog.received.length >= kept.length, 'the records after the moved cursor');
      expectTrail(syslog.received, kept);
      // What a receiver that checks the chain sees: the first record after the gap names a previous hash it never got.
      const first = syslog.received[head]!;
      expect(first.seq).toBe(head + 4);
      expect(first.prevHash).toBe(skipped.at(-1)!.hash);
      expect(syslog.received.map((r) => r.hash)).not.toContain(first.prevHash);

      // The operator replays from the gap: the skipped records arrive, then the rest again (the receiver drops repeats by seq).
      const before = syslog.received.length;
      const replay = await cliJson<{ sinks: string[]; fromSeq: number }>(['audit', 'stream', '--from-seq', String(head + 1), '--sink', 'syslog'], { ...env, VAULT_DATA_DIR: store.dataDir });
      expect(replay).toEqual({ sinks: ['syslog'], fromSeq: head + 1 });
      await until(() => syslog.received.length >= before + trail.length - head, 'the replay of the gap');
      expectTrail(syslog.received.slice(before), trail.slice(head));
    } finally {
      await s?.stop({ keepData: true });
      await syslog.close();
      await store.remove();
    }
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('audit streaming with two instances on one PostgreSQL database', () => {
  it('sends the records both write once each, in seq order, and the other instance takes over when the streaming one stops', async () => {
    const store = await storage('postgres');
    const syslog = await startSyslogReceiver('tcp');
    const otlp = await startOtlpReceiver();
    const env = { ...store.env, VAULT_AUDIT_SYSLOG_URL: syslog.url, VAULT_AUDIT_OTLP_URL: otlp.url };
    const running: TestServer[] = [];
    try {
      const a = await startTestServer({ env, dataDir: store.dataDir });
      running.push(a);
      const b = await startTestServer({ env, dataDir: store.dataDir });
      running.push(b);
      const vault = await a.createVault({ name: 'two' });
      const { apiKey } = await a.createApiKey(vault.id);
      const base = `/api/v1/vaults/${vault.id}`;
      for (let i = 0; i < 6; i++) expect((await client((i % 2 === 0 ? a : b).url, apiKey).post(`${base}/wallets`, { name: `w${i}` })).status).toBe(200);
      let trail = await trailOf(a);
      await until(() => syslog.received.length >= trail.length && otlp.received.length >= trail.length, 'the records of both instances');
      expectTrail(syslog.received, trail);
      expectTrail(otlp.received, trail);

      // The first instance stops (whichever streamed); the second goes on writing, and streams what follows.
      await a.stop({ keepData: true });
      running.splice(running.indexOf(a), 1);
      for (let i = 0; i < 3; i++) expect((await client(b.url, apiKey).post(`${base}/wallets`, { name: `after-${i}` })).status).toBe(200);
      trail = await trailOf(b);
      await until(() => syslog.received.length >= trail.length && otlp.received.length >= trail.length, 'the records after the takeover');
      expectTrail(syslog.received, trail);
      expectTrail(otlp.received, trail);
    } finally {
      for (const s of running) await s.stop({ keepData: true });
      await syslog.close();
      await otlp.close();
      await store.remove();
    }
  });
});
