import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson, spawnServer, type ChildServer, migrateStore } from '../support/cli.js';
import { client } from '../support/http-client.js';

/*
 * Issue 39, item 11: the server's stdout reader stalls (a pipe nobody reads) or goes away (the reader
 * exited, journald restarted). Real processes: the test holds the read end of the served process's
 * stdout, pauses it (the pipe fills) or destroys it (the next write is EPIPE). The outcomes asserted: signs
 * keep answering 200, memory stays bounded, lines dropped are counted and reported, and SIGTERM exits 0.
 * Time bounds are hang detectors only (30 s), never margins.
 */

/** Far above the drain bound (10 s) plus the log settle (1 s): only a hang reaches it. */
const HANG_MS = 30_000;
/** The bound on the server's RSS growth while its reader is stalled (docs/operations.md, "Logs"). */
const RSS_GROWTH_BOUND = 128 * 1024 * 1024;

let dataDir: string;
let env: Record<string, string>;
let vaultId: string;
let apiKey: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-log-reader-'));
  // debug: each refused request writes two lines, a cheap way to produce many.
  env = { VAULT_DATA_DIR: dataDir, LOG_LEVEL: 'debug' };
  await migrateStore(env);
  vaultId = (await cliJson<{ id: string }>(['vaults', 'create', '--name', 'logs'], env)).id;
  apiKey = (await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vaultId], env)).apiKey;
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

async function droppedLines(server: ChildServer): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(/^wallet_vault_log_lines_dropped_total (\d+)/m.exec(text)![1]);
}

async function signer(server: ChildServer) {
  const base = `/api/v1/vaults/${vaultId}`;
  const address = (await client(server.url, apiKey).post(`${base}/wallets`, { name: `signer ${Math.random()}` })).body.data.address;
  let n = 0;
  return async () => {
    const uniq = `0x${(++n).toString(16).padStart(64, '0')}`;
    const reply = await client(server.url, apiKey).post(`${base}/sign`, {
      chain: 'local',
      contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      sender: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      uniq,
      signer: address,
      abi: { type: 'function', name: 'f', inputs: [{ name: 'sig', type: 'tuple', components: [{ name: 'nonce', type: 'bytes32' }, { name: 'r', type: 'bytes32' }, { name: 's', type: 'bytes32' }, { name: 'v', type: 'uint8' }] }] },
      args: [],
    });
    return reply.status;
  };
}

/** 100 refused requests at once, each writing two long lines (a 128-character request id). */
async function logBurst(server: ChildServer, batch: number) {
  await Promise.all(
    Array.from({ length: 100 }, async (_, i) => {
      const id = `${batch}-${i}-`.padEnd(128, 'x');
      const res = await fetch(`${server.url}/api/v1/vaults/${vaultId}/wallets`, { headers: { 'x-request-id': id } });
      await res.arrayBuffer();
      expect(res.status).toBe(401);
    }),
  );
}

/** Bursts of lines (and a sign after each, which must answer 200) until the server has dropped some. */
async function untilDropped(server: ChildServer, sign: () => Promise<number>, atLeast: number, onBurst = () => {}) {
  for (let batch = 0; ; batch++) {
    await logBurst(server, batch);
    expect(await sign()).toBe(200);
    onBurst();
    const dropped = await droppedLines(server);
    if (dropped >= atLeast) return dropped;
    if (batch > 1000) throw new Error(`only ${dropped} lines dropped after ${batch} bursts`);
  }
}

async function exitsWithinBound(server: ChildServer) {
  const exited = server.kill('SIGTERM');
  let timer!: NodeJS.Timeout;
  const hang = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), HANG_MS)));
  const code = await Promise.race([exited, hang]);
  clearTimeout(timer);
  if (code === 'hung') server.child.kill('SIGKILL');
  return code;
}

describe('the server with a stdout reader that stalls or goes away', { timeout: 180_000 }, () => {
  it('stalled: keeps signing, holds its memory, counts the lines it drops and reports them once the reader is back', async () => {
    const server = await spawnServer(env);
    try {
      const sign = await signer(server);
      expect(await sign()).toBe(200);
      expect(await droppedLines(server)).toBe(0);
      const before = rssOf(server.child.pid!);
      let peak = before;

      server.child.stdout!.pause(); // nobody reads: the pipe fills, then the server's queue
      const dropped = await untilDropped(server, sign, 5000, () => (peak = Math.max(peak, rssOf(server.child.pid!))));
      expect(peak - before).toBeLessThan(RSS_GROWTH_BOUND);
      expect(server.output()).not.toContain('log lines dropped');

      server.child.stdout!.resume(); // the reader is back
      for (let i = 0; i * 50 < HANG_MS && !server.output().includes('log lines dropped'); i++) await new Promise((r) => setTimeout(r, 50));
      const report = server
        .output()
        .split('\n')
        .filter((line) => line.includes('log lines dropped'))
        .map((line) => JSON.parse(line) as { level: number; dropped: number });
      expect(report).toHaveLength(1);
      expect(report[0]!.level).toBe(40); // warn
      expect(report[0]!.dropped).toBeGreaterThanOrEqual(dropped);
      expect(await sign()).toBe(200);
      // Lines flow again, and the count is the metric's.
      expect(await droppedLines(server)).toBe(report[0]!.dropped);
      expect(await exitsWithinBound(server)).toBe(0);
      expect(server.output()).toContain('wallet-vault stopped');
    } finally {
      await exitsWithinBound(server);
    }
  });

  it('stalled at SIGTERM: exits 0 rather than wait for the reader', async () => {
    const server = await spawnServer(env);
    try {
      const sign = await signer(server);
      server.child.stdout!.pause();
      await untilDropped(server, sign, 1); // the queue is full
      expect(await exitsWithinBound(server)).toBe(0);
    } finally {
      await exitsWithinBound(server);
    }
  });

  it('gone (EPIPE), with lines queued: keeps signing, counts the lines and exits 0 on SIGTERM', async () => {
    const server = await spawnServer(env);
    try {
      const sign = await signer(server);
      server.child.stdout!.pause();
      await logBurst(server, 0); // lines waiting for the reader
      server.child.stdout!.destroy(); // the reader exits
      const before = await droppedLines(server);
      await untilDropped(server, sign, before + 1000);
      expect(await exitsWithinBound(server)).toBe(0);
    } finally {
      await exitsWithinBound(server);
    }
  });
});
