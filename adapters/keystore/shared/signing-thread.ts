import type { Worker } from 'node:worker_threads';
import type { RecoverableSignature } from '../../../src/ports/key-store.port.js';
import { startWorker } from '../../system/worker-file.js';
import { signDigest } from './secp256k1.js';

/** Per sign in a batch: the private key and the digest in, r, s and the recovery id out (as signing.worker.mjs). */
const IN = 64;
const OUT = 65;
/** Set as the recovery id of a sign that libsecp256k1 refused (a key it finds invalid). */
const FAILED = 255;

interface Job {
  readonly key: Uint8Array;
  readonly digest: Uint8Array;
  resolve(signature: RecoverableSignature): void;
  reject(error: unknown): void;
}

/**
 * libsecp256k1 signing on a thread of its own. The signature is the largest single piece of a sign's
 * CPU on the event loop (about a fifth of it, docs/benchmarks.md); here the loop only copies the key and
 * the digest of each sign of a turn into one buffer, hands it over, and resolves the signatures when
 * they come back, while it parses, checks and commits other requests. Only worth it with a core to
 * spare (the factory decides). A thread that fails or exits is not replaced: the signs it held, and
 * every later one, are signed on the event loop, as without it.
 */
export class SigningThread {
  private worker: Worker | null;
  private pending: Job[] = [];
  private readonly inFlight = new Map<number, Job[]>();
  private nextId = 0;

  constructor() {
    // The thread receives the batch's keys and digests in one transferred buffer and zeroes it once
    // signed; this thread keeps only each job's own copy of its key (for signing here should the thread
    // fail), zeroed as the job settles.
    this.worker = startWorker(import.meta.url, './signing.worker.mjs');
    this.worker.on('message', ({ id, output }: { id: number; output: ArrayBuffer }) => this.settle(id, new Uint8Array(output)));
    this.worker.on('error', () => this.fail());
    this.worker.on('exit', () => this.fail());
  }

  /**
   * Signs `digest` with `privateKey`. The key is copied before this returns: the caller's buffer (the key
   * cache's own) may be zeroed by an eviction or expiry while the sign waits for its turn, and the job must
   * not depend on it. The copy, and the thread's, are zeroed once signed.
   */
  sign(privateKey: Uint8Array, digest: Uint8Array): Promise<RecoverableSignature> {
    if (this.worker === null) return Promise.resolve(signDigest(privateKey, digest));
    return new Promise((resolve, reject) => {
      this.pending.push({ key: Uint8Array.from(privateKey), digest, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Ends the thread; signs still on it are signed here. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === null) return;
    this.fail();
    await worker.terminate();
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    if (this.worker === null) return batch.forEach((job) => this.signHere(job));
    const input = new Uint8Array(batch.length * IN);
    batch.forEach((job, i) => {
      input.set(job.key, i * IN);
      input.set(job.digest, i * IN + 32);
    });
    const id = this.nextId++;
    this.inFlight.set(id, batch);
    // Kept alive while signs are out: an idle thread never holds the process open.
    if (this.inFlight.size === 1) this.worker.ref();
    this.worker.postMessage({ id, input: input.buffer, count: batch.length }, [input.buffer]);
  }

  private settle(id: number, output: Uint8Array): void {
    const batch = this.inFlight.get(id);
    if (!batch) return;
    this.inFlight.delete(id);
    if (this.inFlight.size === 0) this.worker?.unref();
    batch.forEach((job, i) => {
      const at = i * OUT;
      const recid = output[at + 64]!;
      if (recid === FAILED) return this.signHere(job); // the error libsecp256k1 gives, raised where it always was
      job.key.fill(0);
      job.resolve({ r: output.slice(at, at + 32), s: output.slice(at + 32, at + 64), v: recid === 0 ? 27 : 28 });
    });
  }

  private signHere(job: Job): void {
    try {
      job.resolve(signDigest(job.key, job.digest));
    } catch (error) {
      job.reject(error);
    } finally {
      job.key.fill(0);
    }
  }

  /** From now on signs are made here, those the thread held and those not yet handed over included. */
  private fail(): void {
    if (this.worker === null) return;
    this.worker = null;
    const held = [...this.inFlight.values()].flat();
    this.inFlight.clear();
    const waiting = this.pending;
    this.pending = [];
    [...held, ...waiting].forEach((job) => this.signHere(job));
  }
}
