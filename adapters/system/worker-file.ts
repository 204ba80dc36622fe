import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread from a file next to the module that starts it (`from` is that module's
 * import.meta.url). Every worker of the vault starts here, and every worker is a plain ES module ending
 * in `.worker.mjs`: node runs it as it is, so the one file serves the TypeScript sources under vitest
 * (whose transform never reaches a worker thread, and node cannot run a `.ts` worker) and the compiled
 * package, where tsc (allowJs) emits it (the same code, reformatted) into dist/ next to the module that
 * starts it and `files` packs it; tsconfig.bench.json names the worker files for dist-bench/. Its
 * imports resolve from where it lies, as the starting module's do.
 *
 * A missing file throws here, naming it, rather than surfacing later as a thread that died: a build or
 * a package that lost a worker is a defect to see, not a slower path to fall into unnoticed.
 */
export function startWorker(from: string, file: `./${string}.worker.mjs`, options?: WorkerOptions): Worker {
  const url = new URL(file, from);
  if (!existsSync(url)) throw new Error(`the worker file ${fileURLToPath(url)} is missing (was it left out of the build?)`);
  const worker = new Worker(url, options);
  // No worker of ours keeps a process alive that is otherwise done; one refs itself while it has work out.
  worker.unref();
  return worker;
}
