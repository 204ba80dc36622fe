import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SERVER_NODE_FLAGS } from '../adapters/main/node-flags.js';
import { BIN, runCli, spawnServer } from '../test/support/cli.js';
import { SIGN_ABI as abi, SIGN_ARGS as args, SIGN_CONTRACT as contract, SIGN_SENDER as sender, SIGN_UNIQ as uniq } from './support/sign-request.js';
import type { CallTrace, CoverageTake, ThreadTake } from './support/sign-path.preload.js';

/**
 * Which of the project's own files one sign runs through (issue 22: "the sign path crosses half as many
 * files"), in this checkout and in others given, in one run. Each checkout is set up alike with its own
 * command: a fresh data directory (SQLite, local key store, a master key in the environment, the signing
 * thread on, no X-Vault-Auth-Signature, no rate limits), `vaults create`, `api-keys create`, then `serve`
 * started with support/sign-path.preload.ts, a wallet created over HTTP and POST /sign on chain `local`
 * (uniq and signer given, as bench:sign signs) over one keep-alive connection.
 * After `WARM_UP` signs, V8's precise coverage (function call counts) starts on every thread of the server
 * and `WARM_UP_COVERED` more signs run; then each of `signs` measured signs is taken alone (the counts of the
 * sign's window, and of nothing else), and so is one window of the same length without a sign.
 * A file is on the sign path when at least one of its functions other than its top-level body (which ran
 * when it was loaded) was called in EVERY measured sign's window, on any thread; compiled files (dist/) are
 * mapped back to their sources. Files called in some signs' windows only, and those called in the window
 * without a sign, are listed apart. Lines are the source file's lines; code lines leave out blank and
 * comment-only lines.
 * Then one more sign runs with a breakpoint on each function of the event loop's thread that the measured
 * signs called (the preload's tracing thread answers each stop at once): the files of the functions entered,
 * in order, give the changes of file and of folder between one function entered and the next (returns are
 * not entries; the worker threads are not traced).
 * Usage: npm run bench:sign-path [-- <other checkout> ...]; BENCH_BASELINE_BIN=<other checkout>/bin/wallet-vault.js
 * also names one (as bench:sign takes it). Each other checkout is built there with its own `npm run build`.
 * BENCH_SIGN_PATH_SIGNS=n measured signs (default 3); BENCH_SIGN_PATH_LIST=0 prints the totals only.
 */
const WARM_UP = 50;
const WARM_UP_COVERED = 10;
const signs = Number(process.env.BENCH_SIGN_PATH_SIGNS ?? 3);
const listFiles = process.env.BENCH_SIGN_PATH_LIST !== '0';
const PRELOAD = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/sign-path.preload.js')).href;
// Work a sign leaves after its answer (the reply's 'finish' listeners) lands in the sign's window.
const SETTLE_MS = 100;

// Nothing of the caller's environment configures the servers measured: each gets exactly the same settings.
for (const name of Object.keys(process.env)) if (name.startsWith('VAULT_')) delete process.env[name];

interface Checkout {
  readonly root: string;
  readonly label: string;
}

/** What one checkout's sign ran through. */
interface SignPath {
  readonly checkout: Checkout;
  /** Source paths (relative to the checkout) on the path, with the threads they ran on. */
  readonly files: Map<string, Set<string>>;
  readonly someSignsOnly: Set<string>;
  readonly withoutSign: Set<string>;
  readonly packages: Set<string>;
  /** The files of the path in the order the event loop's thread entered their functions during one sign. */
  readonly order: readonly string[];
  /** Breakpoints set for it: one per function of the project's files called in the measured signs. */
  readonly breakpoints: number;
  /** Calls per sign of each function of the project's files (`source#name`), on every thread, over the measured signs. */
  readonly calls: Map<string, number>;
}

const checkoutOf = (root: string): Checkout => {
  const git = (...a: string[]) => execFileSync('git', ['-C', root, ...a], { encoding: 'utf8' }).trim();
  let label: string;
  try {
    label = git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') === '' ? '' : ' + uncommitted changes');
  } catch {
    label = path.basename(root);
  }
  return { root, label };
};

const others = [...process.argv.slice(2), ...(process.env.BENCH_BASELINE_BIN ? [path.dirname(path.dirname(process.env.BENCH_BASELINE_BIN))] : [])];
const checkouts = [path.dirname(path.dirname(BIN)), ...others.map((o) => path.resolve(o))].map(checkoutOf);
for (const { root } of checkouts) {
  if (!existsSync(path.join(root, 'dist/adapters/cli/main.js'))) throw new Error(`${root} is not built: run \`npm run build\` there`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForFile(file: string, seconds = 10): Promise<string> {
  for (let i = 0; i < seconds * 40; i++) {
    if (existsSync(file)) return readFileSync(file, 'utf8');
    const failed = path.join(path.dirname(file), 'error.json');
    if (existsSync(failed)) throw new Error(`coverage failed in the server: ${readFileSync(failed, 'utf8')}`);
    await sleep(25);
  }
  throw new Error(`no ${path.basename(file)} from the server`);
}

async function cli<T>(checkout: Checkout, command: string[], env: Record<string, string>): Promise<T> {
  const r = await runCli([...command, '--json'], env, { bin: path.join(checkout.root, 'bin/wallet-vault.js') });
  if (r.code !== 0) throw new Error(`wallet-vault ${command.join(' ')} failed (${r.code}) in ${checkout.label}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** The source file (relative to the checkout) that a script URL of the running server was compiled from. */
function sourceOf(root: string, url: string): string | undefined {
  const dist = pathToFileURL(path.join(root, 'dist')).href + '/';
  if (!url.startsWith(dist)) return undefined;
  const compiled = decodeURIComponent(url.slice(dist.length));
  const stem = compiled.replace(/\.(m?js)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.mts`, compiled]) if (existsSync(path.join(root, candidate))) return candidate;
  return compiled;
}

const packageOf = (url: string) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];

/** The project's files with a function other than the top-level body called in one window, with their threads. */
function filesOfTake(root: string, threads: readonly ThreadTake[], packages?: Set<string>): Map<string, Set<string>> {
  const files = new Map<string, Set<string>>();
  for (const thread of threads) {
    const where = thread.threadId === 0 ? 'event loop' : 'worker thread';
    for (const script of thread.scripts) {
      if (!script.functions.some((f) => !f.topLevel)) continue;
      const pkg = packageOf(script.url);
      if (pkg !== undefined) packages?.add(pkg);
      // A worker started from a source string: its code is written in the module that started it.
      const url = script.url.startsWith('file:') ? script.url : thread.evalFrom;
      const source = url === undefined ? undefined : sourceOf(root, url);
      if (source !== undefined) files.set(source, (files.get(source) ?? new Set()).add(where));
    }
  }
  return files;
}

/** Adds `weight` × each project function's call count in one window to `calls` (`source#name`). */
function countCalls(root: string, threads: readonly ThreadTake[], calls: Map<string, number>, weight: number): void {
  for (const thread of threads) {
    for (const script of thread.scripts) {
      const source = sourceOf(root, script.url.startsWith('file:') ? script.url : (thread.evalFrom ?? ''));
      if (source === undefined) continue;
      for (const f of script.functions) {
        if (f.topLevel) continue;
        const key = `${source}#${f.name}`;
        calls.set(key, (calls.get(key) ?? 0) + f.count * weight);
      }
    }
  }
}

async function measure(checkout: Checkout): Promise<SignPath> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-sign-path-'));
  const coverageDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-sign-path-coverage-'));
  const env = { VAULT_DATA_DIR: dataDir, VAULT_MASTER_KEY: randomBytes(32).toString('hex'), VAULT_SIGNING_THREAD: 'true' };
  try {
    // A build with `migrate` needs it before any other command; one before it created the store on `vaults create`.
    await cli(checkout, ['migrate'], env).catch(() => undefined);
    const vault = await cli<{ id: string }>(checkout, ['vaults', 'create', '--name', 'sign-path'], env);
    const { apiKey } = await cli<{ apiKey: string }>(checkout, ['api-keys', 'create', '--vault', vault.id], env);
    const server = await spawnServer(
      { ...env, SIGN_PATH_COVERAGE_DIR: coverageDir },
      [...SERVER_NODE_FLAGS, '--import', PRELOAD],
      path.join(checkout.root, 'bin/wallet-vault.js'),
    );
    try {
      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const created = await fetch(`${server.url}/api/v1/vaults/${vault.id}/wallets`, { method: 'POST', headers, body: JSON.stringify({ name: 'signer' }) });
      if (created.status !== 201 && created.status !== 200) throw new Error(`wallet create: ${created.status} ${await created.text()}`);
      const signer = ((await created.json()) as { data: { address: string } }).data.address;
      const body = JSON.stringify({ chain: 'local', contract, sender, uniq, signer, abi, args });
      const sign = async () => {
        const r = await fetch(`${server.url}/api/v1/vaults/${vault.id}/sign`, { method: 'POST', headers, body });
        if (r.status !== 200) throw new Error(`sign failed in ${checkout.label}: ${r.status} ${await r.text()}`);
        await r.arrayBuffer();
        await sleep(SETTLE_MS);
      };
      let taken = 0;
      const takeWindow = async (): Promise<CoverageTake> => {
        server.child.kill('SIGUSR2');
        return JSON.parse(await waitForFile(path.join(coverageDir, `take-${++taken}.json`))) as CoverageTake;
      };

      for (let i = 0; i < WARM_UP; i++) await sign();
      server.child.kill('SIGUSR2');
      await waitForFile(path.join(coverageDir, 'ready.json'));
      for (let i = 0; i < WARM_UP_COVERED; i++) await sign();
      await takeWindow(); // the warm-up's counts, dropped
      const windows: Map<string, Set<string>>[] = [];
      const packages = new Set<string>();
      const calls = new Map<string, number>();
      for (let i = 0; i < signs; i++) {
        await sign();
        const { threads } = await takeWindow();
        windows.push(filesOfTake(checkout.root, threads, packages));
        countCalls(checkout.root, threads, calls, 1 / signs);
      }
      await sleep(SETTLE_MS);
      const withoutSign = new Set(filesOfTake(checkout.root, (await takeWindow()).threads).keys());

      const files = new Map([...windows[0]!].filter(([file]) => windows.every((w) => w.has(file))));
      for (const w of windows.slice(1)) for (const [file, threads] of w) for (const t of threads) files.get(file)?.add(t);
      const someSignsOnly = new Set(windows.flatMap((w) => [...w.keys()]).filter((f) => !files.has(f)));

      // One more sign with a breakpoint on every function of the project's files, for the order.
      const command = async <T>(name: string, answer: string): Promise<T> => {
        writeFileSync(path.join(coverageDir, 'command'), name);
        server.child.kill('SIGUSR2');
        return JSON.parse(await waitForFile(path.join(coverageDir, answer), 120)) as T;
      };
      const { breakpoints } = await command<{ breakpoints: number }>('trace-start', 'trace-armed.json');
      await sign();
      const { entries } = await command<CallTrace>('trace-stop', 'trace.json');
      const order = entries.map((url) => sourceOf(checkout.root, url) ?? '').filter((f) => files.has(f));
      return { checkout, files, someSignsOnly, withoutSign, packages, order, breakpoints, calls };
    } finally {
      await server.kill('SIGTERM');
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(coverageDir, { recursive: true, force: true });
  }
}

/** Lines of a source file, and those holding code (not blank, not only a comment). */
function linesOf(file: string): { lines: number; code: number } {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let code = 0;
  let state: 'code' | 'block' | "'" | '"' | '`' = 'code';
  for (const line of lines) {
    let hasCode = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (state === 'block') {
        if (c === '*' && line[i + 1] === '/') (state = 'code'), i++;
      } else if (state !== 'code') {
        hasCode = true;
        if (c === '\\') i++;
        else if (c === state) state = 'code';
      } else if (c === '/' && line[i + 1] === '/') break;
      else if (c === '/' && line[i + 1] === '*') (state = 'block'), i++;
      else if (c !== ' ' && c !== '\t') {
        hasCode = true;
        if (c === "'" || c === '"' || c === '`') state = c;
      }
    }
    if (state === "'" || state === '"') state = 'code'; // an unterminated quote (a regular expression's) ends with its line
    if (hasCode) code++;
  }
  return { lines: lines.length, code };
}

const results: SignPath[] = [];
for (const checkout of checkouts) {
  console.error(`measuring ${checkout.label} ...`);
  results.push(await measure(checkout));
}

const group = (files: Iterable<string>) => {
  const byFolder = new Map<string, string[]>();
  for (const f of [...files].sort()) byFolder.set(path.dirname(f), [...(byFolder.get(path.dirname(f)) ?? []), path.basename(f)]);
  return byFolder;
};
const changes = (xs: readonly string[]) => xs.filter((x, i) => i > 0 && x !== xs[i - 1]).length;
const runs = (xs: readonly string[]) => xs.filter((x, i) => i === 0 || x !== xs[i - 1]);
const totals = (r: SignPath) => {
  const counted = [...r.files.keys()].map((f) => linesOf(path.join(r.checkout.root, f)));
  return {
    files: r.files.size,
    lines: counted.reduce((a, c) => a + c.lines, 0),
    code: counted.reduce((a, c) => a + c.code, 0),
    folders: group(r.files.keys()).size,
    areas: new Set([...r.files.keys()].map((f) => f.split('/').slice(0, 2).join('/'))).size,
    folderChanges: changes(r.order.map((f) => path.dirname(f))),
    fileChanges: changes(r.order),
  };
};

if (listFiles) {
  for (const r of results) {
    console.log(`\n## ${r.checkout.label}: files of the sign path, by folder (lines / code lines; [worker thread] where a worker ran it)\n`);
    for (const [folder, names] of group(r.files.keys())) {
      const entries = names.map((n) => {
        const file = path.join(folder, n);
        const { lines, code } = linesOf(path.join(r.checkout.root, file));
        const threads = r.files.get(file)!;
        return `${n} ${lines}/${code}${threads.has('worker thread') ? (threads.size > 1 ? ' [event loop + worker thread]' : ' [worker thread]') : ''}`;
      });
      console.log(`- ${folder}/ (${names.length}): ${entries.join(', ')}`);
    }
    const list = (s: Set<string>) => (s.size === 0 ? 'none' : [...s].sort().join(', '));
    console.log(`\nin some measured signs' windows only (not counted): ${list(r.someSignsOnly)}`);
    console.log(`in the window without a sign (not a sign's work): ${list(r.withoutSign)}`);
    console.log(`packages (node_modules) with a function called: ${r.packages.size}: ${[...r.packages].sort().join(', ')}`);
    const entered = new Set(r.order);
    console.log(
      `\ncall order on the event loop's thread (${r.breakpoints} breakpoints): ${r.order.length} entries into functions of the path's files (${entered.size} of its ${r.files.size} files), ${changes(r.order)} changes of file, ${changes(r.order.map((f) => path.dirname(f)))} of folder:`,
    );
    console.log(runs(r.order.map((f) => path.dirname(f))).join(' > '));
  }
}

for (const other of listFiles ? results.slice(1) : []) {
  const only = (a: SignPath, b: SignPath) => [...a.files.keys()].filter((f) => !b.files.has(f)).sort().join(', ') || 'none';
  console.log(`\non ${results[0]!.checkout.label}'s path only: ${only(results[0]!, other)}`);
  console.log(`on ${other.checkout.label}'s path only: ${only(other, results[0]!)}`);
}

console.log(`\n| sign path (${signs} signs, each its own window) | files | lines | code lines | folders | top-level areas | folder changes in call order | file changes in call order |`);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of results) {
  const t = totals(r);
  console.log(`| ${r.checkout.label} | ${t.files} | ${t.lines} | ${t.code} | ${t.folders} | ${t.areas} | ${t.folderChanges} | ${t.fileChanges} |`);
}
/**
 * Folder bounces: a folder left for another and entered again right after (A > B > A in the folder runs of
 * the call order), the back-and-forth a reader follows across the seams.
 */
const bounces = (r: SignPath) => {
  const folders = runs(r.order.map((f) => path.dirname(f)));
  return folders.filter((f, i) => i >= 2 && f === folders[i - 2]).length;
};
console.log(`\n| folder bounces (A > B > A) in one sign's call order | count |`);
console.log('|---|---|');
for (const r of results) console.log(`| ${r.checkout.label} | ${bounces(r)} |`);

/**
 * How many times per sign each datum of the request is parsed or checked: the calls per sign of the
 * functions that do it (a function renamed or moved between builds is listed under each of its names).
 * `per` is how many such data one Sign request carries, so the target is `per` calls (1 per datum).
 */
const DATA: readonly { readonly datum: string; readonly per: number; readonly functions: readonly string[] }[] = [
  // Synchronous functions only: V8 counts an async function once more for each await it resumes from.
  { datum: 'the body as JSON text (size and nesting before JSON.parse)', per: 1, functions: ['checkJsonText'] },
  { datum: 'the Sign fields as one object (names, types, formats)', per: 1, functions: ['readSignFields', 'signFieldChecks'] },
  { datum: 'an address (contract, sender, signer, the address argument)', per: 4, functions: ['parseAddress'] },
  { datum: 'the arguments and the ABI (depth, lengths, count)', per: 2, functions: ['checkJsonBounds'] },
  { datum: 'the ABI (to a function: parsed, or found parsed)', per: 1, functions: ['abiKey'] },
  { datum: 'the arguments (coerced to the ABI types)', per: 1, functions: ['coerceArguments'] },
  { datum: 'the API key (format, then the secret)', per: 2, functions: ['parseApiKey', 'secretMatches'] },
];
const callsOf = (r: SignPath, name: string) => [...r.calls].filter(([key]) => key.endsWith(`#${name}`)).reduce((a, [, n]) => a + n, 0);
console.log(`\n| per sign: calls of the functions that parse or check each datum | per request | ${results.map((r) => r.checkout.label).join(' | ')} |`);
console.log(`|---|---|${results.map(() => '---|').join('')}`);
for (const d of DATA) {
  const cells = results.map((r) => d.functions.map((fn) => [fn, callsOf(r, fn)] as const).filter(([, n]) => n > 0).map(([fn, n]) => `${fn} ${Number(n.toFixed(2))}`).join(', ') || '0');
  console.log(`| ${d.datum} | ${d.per} | ${cells.join(' | ')} |`);
}
if (process.env.BENCH_SIGN_PATH_FUNCTIONS === '1') {
  for (const r of results) {
    console.log(`\n## ${r.checkout.label}: calls per sign of each function of the project's files\n`);
    for (const [key, n] of [...r.calls].sort((a, b) => a[0].localeCompare(b[0]))) console.log(`- ${key} ${Number(n.toFixed(2))}`);
  }
}

const [mine, ...rest] = results.map(totals);
for (const [i, other] of rest.entries()) {
  const ratio = (k: 'files' | 'lines' | 'code' | 'folders' | 'folderChanges') => (mine![k] / other[k]).toFixed(2);
  console.log(
    `${results[0]!.checkout.label} / ${results[i + 1]!.checkout.label}: files ${ratio('files')}, lines ${ratio('lines')}, code lines ${ratio('code')}, folders ${ratio('folders')}, folder changes ${ratio('folderChanges')}`,
  );
}
