/**
 * Loaded into a `wallet-vault serve` process by bench/sign-path.ts (`node --import <this file>`), in any
 * checkout: it imports nothing of the project, only node's own modules. With SIGN_PATH_COVERAGE_DIR set it
 * records which functions run between two signals, on the event loop's thread and on every worker thread:
 *
 * - the first SIGUSR2 starts V8's precise coverage (function call counts) in this thread and, through the
 *   inspector's NodeWorker domain, in each worker thread, then writes `ready.json`;
 * - every later SIGUSR2 takes the coverage of each thread (which resets its counts) and writes
 *   `take-<n>.json` (n from 1): per thread, each script with the functions called since the previous take.
 *
 * A worker started from a source string (`new Worker(source, { eval: true })`) has no file of its own: the
 * file that started it is recorded (from the stack at `new Worker`), as the place where its code is written.
 *
 * A SIGUSR2 that finds a file `command` in the directory does what it says instead (and removes it):
 * `trace-start` starts a thread that sets a breakpoint on the first statement of every function of the
 * project's compiled files (dist/) this thread has compiled, and records the file of each breakpoint hit,
 * in order, resuming at once (`trace-armed.json` once set); `trace-stop` removes them and writes the
 * order as `trace.json`. Only this thread is traced (not the workers).
 * Without SIGN_PATH_COVERAGE_DIR this module does nothing.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData, type WorkerOptions } from 'node:worker_threads';

/** One function V8 reports as called since the previous take; `topLevel` is a script's own body. */
export interface CalledFunction {
  readonly name: string;
  /** Where it lies in its script: character offsets of its start and end. */
  readonly start: number;
  readonly end: number;
  readonly count: number;
  readonly topLevel: boolean;
}

export interface ScriptTake {
  readonly url: string;
  readonly functions: readonly CalledFunction[];
}

export interface ThreadTake {
  /** 0 for the event loop's thread, the worker's threadId otherwise. */
  readonly threadId: number;
  /** For a worker started from a source string: the URL of the module that started it. */
  readonly evalFrom?: string;
  readonly scripts: readonly ScriptTake[];
}

/** The content of `take-<n>.json`. */
export interface CoverageTake {
  readonly take: number;
  readonly threads: readonly ThreadTake[];
}

interface RawCoverage {
  result: { url: string; functions: { functionName: string; ranges: { startOffset: number; endOffset: number; count: number }[] }[] }[];
}

/** The content of `trace.json`: the script URL of each breakpoint hit, in order. */
export interface CallTrace {
  readonly entries: readonly string[];
}

const dir = process.env.SIGN_PATH_COVERAGE_DIR;
/** What the tracing thread is given: the functions to trace, by script URL, as [start, end] offsets. */
type TraceTargets = [url: string, ranges: [number, number][]][];
const tracerOf = (workerData as { signPathTracer?: TraceTargets } | null)?.signPathTracer;
if (dir !== undefined && isMainThread) install(dir);
else if (tracerOf !== undefined) void trace(tracerOf);

function install(outDir: string): void {
  const self = new URL(import.meta.url).href;
  const evalFrom = traceEvalWorkers(self);
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))));

  // The workers' inspector sessions, reached through this thread's session, and each one's threadId (asked
  // of the worker: the domain's own workerId is not the threadId).
  const workers = new Map<string, number>();
  const waiting = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  session.on('NodeWorker.attachedToWorker', ({ params }: { params: { sessionId: string } }) => {
    workers.set(params.sessionId, -1);
  });
  session.on('NodeWorker.detachedFromWorker', ({ params }: { params: { sessionId: string } }) => workers.delete(params.sessionId));
  session.on('NodeWorker.receivedMessageFromWorker', ({ params }: { params: { message: string } }) => {
    const reply = JSON.parse(params.message) as { id?: number; result?: unknown; error?: { message: string } };
    const pending = reply.id === undefined ? undefined : waiting.get(reply.id);
    if (pending === undefined) return;
    waiting.delete(reply.id!);
    if (reply.error) pending.reject(new Error(reply.error.message));
    else pending.resolve(reply.result);
  });
  const postToWorker = <T>(sessionId: string, method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve: (r) => resolve(r as T), reject });
      post('NodeWorker.sendMessageToWorker', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
    });

  const start = async (call: <T>(method: string, params?: object) => Promise<T>) => {
    await call('Profiler.enable');
    await call('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  };
  const take = async (call: <T>(method: string, params?: object) => Promise<T>): Promise<ScriptTake[]> => {
    const { result } = await call<RawCoverage>('Profiler.takePreciseCoverage');
    return result
      .map((script) => ({
        url: script.url,
        functions: script.functions
          .filter((f) => f.ranges[0]!.count > 0)
          .map((f) => {
            const { startOffset: start, endOffset: end, count } = f.ranges[0]!;
            return { name: f.functionName, start, end, count, topLevel: start === 0 && f.functionName === '' };
          }),
      }))
      .filter((s) => s.functions.length > 0);
  };
  const write = (name: string, content: unknown) => {
    const file = path.join(outDir, name);
    writeFileSync(`${file}.tmp`, JSON.stringify(content));
    renameSync(`${file}.tmp`, file);
  };

  const cover = async (sessionId: string) => {
    const { result } = await postToWorker<{ result: { value: number } }>(sessionId, 'Runtime.evaluate', {
      expression: "require('node:worker_threads').threadId",
      includeCommandLineAPI: true, // the command line API's require
      returnByValue: true,
    });
    workers.set(sessionId, result.value);
    await start((m, p) => postToWorker(sessionId, m, p));
  };

  let started = false;
  let takes = 0;
  let queue = Promise.resolve();
  // The functions of the server's compiled files (dist/ beside bin/ of the command that started it) that this
  // thread called in the takes: the ones the tracing thread traces.
  const dist = new URL('../dist/', pathToFileURL(process.argv[1]!)).href;
  const called = new Map<string, Map<number, number>>();
  let tracer: Worker | undefined;
  // The tracer's next message, or its failure.
  const fromTracer = () =>
    new Promise<unknown>((resolve, reject) => {
      const failed = (error: unknown) => reject(error instanceof Error ? error : new Error(`the tracing thread exited (${String(error)})`));
      tracer!.once('message', (m) => {
        tracer!.off('error', failed).off('exit', failed);
        resolve(m);
      });
      tracer!.once('error', failed).once('exit', failed);
    });
  const traceCommand = async (command: string) => {
    if (command === 'trace-start') {
      const targets: TraceTargets = [...called].map(([url, ranges]) => [url, [...ranges]]);
      tracer = new Worker(new URL(import.meta.url), { workerData: { signPathTracer: targets } });
      write('trace-armed.json', await fromTracer());
    } else if (command === 'trace-stop' && tracer !== undefined) {
      const done = fromTracer();
      tracer.postMessage('stop');
      write('trace.json', await done);
      await tracer.terminate();
      tracer = undefined;
    } else throw new Error(`unknown command ${command}`);
  };

  const onSignal = async () => {
    const commandFile = path.join(outDir, 'command');
    if (existsSync(commandFile)) {
      const command = readFileSync(commandFile, 'utf8').trim();
      rmSync(commandFile);
      return traceCommand(command);
    }
    if (!started) {
      started = true;
      // Enabling the domain reports the workers already running (attachedToWorker), then each new one.
      await post('NodeWorker.enable', { waitForDebuggerOnStart: false });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await start(post);
      for (const sessionId of workers.keys()) await cover(sessionId);
      write('ready.json', { workers: [...workers.values()] });
      return;
    }
    const threads: ThreadTake[] = [{ threadId: 0, scripts: await take(post) }];
    for (const script of threads[0]!.scripts) {
      if (!script.url.startsWith(dist)) continue;
      const ranges = called.get(script.url) ?? new Map<number, number>();
      for (const f of script.functions) if (!f.topLevel) ranges.set(f.start, f.end);
      called.set(script.url, ranges);
    }
    for (const [sessionId, threadId] of workers) {
      // A worker started since the coverage started: covered from now on, in the next take.
      if (threadId === -1) {
        await cover(sessionId);
        continue;
      }
      const from = evalFrom.get(threadId);
      threads.push({ threadId, ...(from === undefined ? {} : { evalFrom: from }), scripts: await take((m, p) => postToWorker(sessionId, m, p)) });
    }
    write(`take-${++takes}.json`, { take: takes, threads } satisfies CoverageTake);
  };
  process.on('SIGUSR2', () => {
    queue = queue.then(onSignal).catch((error: unknown) => write('error.json', { message: String((error as Error).stack ?? error) }));
  });
}

/**
 * Records, for each worker started from a source string, the first module on the stack at `new Worker`
 * other than this one: node's worker_threads.Worker is replaced by a subclass that does only that, and
 * syncBuiltinESMExports makes `import { Worker } from 'node:worker_threads'` see it.
 */
function traceEvalWorkers(self: string): Map<number, string> {
  const started = new Map<number, string>();
  const threads = createRequire(import.meta.url)('node:worker_threads') as { Worker: typeof Worker };
  const Original = threads.Worker;
  class TracedWorker extends Original {
    constructor(filename: string | URL, options?: WorkerOptions) {
      super(filename, options);
      if (options?.eval !== true) return;
      const frames = (new Error().stack ?? '').split('\n').slice(1);
      const from = frames.map((line) => /(file:\/\/[^\s)]+?):\d+:\d+\)?$/.exec(line)?.[1]).find((url) => url !== undefined && url !== self);
      if (from !== undefined) started.set(this.threadId, from);
    }
  }
  threads.Worker = TracedWorker;
  syncBuiltinESMExports();
  return started;
}

/**
 * The tracing thread (trace-start): a session on the main thread from here, so that the main thread's
 * pauses are answered while it is stopped. It sets a breakpoint at the first place each function given
 * can stop (its first statement, or one of a function nested in it: the same file either way).
 */
async function trace(targets: TraceTargets): Promise<void> {
  const port = parentPort!;
  const session = new Session();
  session.connectToMainThread();
  const post = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))));
  const wanted = new Map(targets);
  const idOf = new Map<string, string>();
  const urlOf = new Map<string, string>();
  session.on('Debugger.scriptParsed', ({ params }: { params: { scriptId: string; url: string } }) => {
    if (!wanted.has(params.url)) return;
    idOf.set(params.url, params.scriptId);
    urlOf.set(params.scriptId, params.url);
  });
  const entries: string[] = [];
  session.on('Debugger.paused', ({ params }: { params: { callFrames: { location: { scriptId: string } }[] } }) => {
    entries.push(urlOf.get(params.callFrames[0]!.location.scriptId) ?? '');
    session.post('Debugger.resume');
  });
  // Listening keeps this thread alive until the stop (the session alone does not).
  port.on('message', () => {
    // The main thread ends this thread once it has the answer (closing the port here could lose it).
    void post('Debugger.disable').then(() => port.postMessage({ entries } satisfies CallTrace));
  });

  await post('Debugger.enable'); // reports every script parsed so far (scriptParsed)
  type Location = { scriptId: string; lineNumber: number; columnNumber?: number };
  let breakpoints = 0;
  for (const [url, ranges] of wanted) {
    const scriptId = idOf.get(url);
    if (scriptId === undefined) continue;
    const { scriptSource } = await post<{ scriptSource: string }>('Debugger.getScriptSource', { scriptId });
    const lineStarts = [0];
    for (let i = scriptSource.indexOf('\n'); i !== -1; i = scriptSource.indexOf('\n', i + 1)) lineStarts.push(i + 1);
    const locationOf = (offset: number): Location => {
      let line = 0;
      while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= offset) line++;
      return { scriptId, lineNumber: line, columnNumber: offset - lineStarts[line]! };
    };
    const { locations } = await post<{ locations: Location[] }>('Debugger.getPossibleBreakpoints', {
      start: locationOf(0),
      end: locationOf(scriptSource.length),
    });
    const offsets = locations.map((l) => lineStarts[l.lineNumber]! + (l.columnNumber ?? 0)).sort((a, b) => a - b);
    const set = new Set<number>();
    for (const [start, end] of ranges) {
      const at = offsets.find((o) => o >= start && o < end);
      if (at === undefined || set.has(at)) continue;
      set.add(at);
      await post('Debugger.setBreakpoint', { location: locationOf(at) });
      breakpoints++;
    }
  }
  port.postMessage({ breakpoints, scripts: idOf.size });
}
