import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { generatePrivateKey, signDigest } from '../../adapters/keystore/shared/secp256k1.js';
import { startWorker } from '../../adapters/system/worker-file.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(root, dir), { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

/**
 * Issue 22: the signing thread and the WAL checkpointer started their workers from source strings run
 * with `eval` (code no linter, type checker or coverage tool sees). Every worker is now a file, started
 * through adapters/system/worker-file.ts, which the sources and the compiled package both run.
 */
describe('workers are files started through one helper', () => {
  it('no runtime code starts a worker from a string (eval) or any other way than startWorker', async () => {
    const sources = [...(await filesUnder('adapters')), ...(await filesUnder('src')), ...(await filesUnder('lib'))].filter((f) => /\.[cm]?[jt]s$/.test(f));
    const offenders: string[] = [];
    for (const file of sources) {
      if (file === path.join('adapters', 'system', 'worker-file.ts')) continue;
      const text = await readFile(path.join(root, file), 'utf8');
      if (/eval:\s*true|new Worker\(/.test(text)) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });

  it('every worker file of the sources is in dist/, next to the module that starts it', async () => {
    const workers = (await filesUnder('adapters')).filter((f) => f.endsWith('.worker.mjs'));
    expect(workers.length).toBeGreaterThanOrEqual(2);
    for (const worker of workers) expect(existsSync(path.join(root, 'dist', worker)), worker).toBe(true);
  });

  it('the compiled WAL checkpointer (dist/) checkpoints through its worker file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-worker-file-'));
    try {
      const file = path.join(dir, 'wal.db');
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
      const url = pathToFileURL(path.join(root, 'dist/adapters/persistence/sqlite/sqlite.wal-checkpointer.js')).href;
      const { WalCheckpointer } = (await import(url)) as typeof import('../../adapters/persistence/sqlite/sqlite.wal-checkpointer.js');
      const checkpointer = new WalCheckpointer(file);
      // Rejects when the worker fails to start or to checkpoint.
      const result = await checkpointer.checkpoint();
      expect(result.busy).toBe(0);
      await checkpointer.close();
      db.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  // The signing thread falls back to the event loop when its worker dies, which would hide a broken
  // worker file: here the file itself is run, from the sources and from dist/ (built by the global setup).
  for (const tree of ['sources', 'dist'] as const) {
    it(`the signing worker file signs a batch when started from the ${tree}`, async () => {
      const starter = path.join(root, tree === 'dist' ? 'dist' : '', 'adapters/keystore/shared/signing-thread.js');
      const worker = startWorker(pathToFileURL(starter).href, './signing.worker.mjs');
      try {
        const key = generatePrivateKey();
        const digest = randomBytes(32);
        const input = new Uint8Array(64);
        input.set(key, 0);
        input.set(digest, 32);
        const answer = new Promise<Uint8Array>((resolve, reject) => {
          worker.once('message', ({ output }: { output: ArrayBuffer }) => resolve(new Uint8Array(output)));
          worker.once('error', reject);
        });
        worker.ref();
        worker.postMessage({ id: 0, input: input.buffer, count: 1 }, [input.buffer]);
        const output = await answer;
        const here = signDigest(key, digest);
        expect({ r: hex(output.subarray(0, 32)), s: hex(output.subarray(32, 64)), v: output[64]! + 27 }).toEqual({ r: hex(here.r), s: hex(here.s), v: here.v });
      } finally {
        await worker.terminate();
      }
    });
  }

  it('refuses a worker file that is not there, naming it, instead of a thread that dies later', () => {
    expect(() => startWorker(import.meta.url, './no-such.worker.mjs')).toThrow(/the worker file .*no-such\.worker\.mjs is missing/);
  });
});
