import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Also compiled into dist-bench/ for the benchmarks, which run the same real command.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..').replace(/\/dist-bench$/, '');
export const BIN = path.join(repoRoot, 'bin/wallet-vault.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `wallet-vault` command (compiled by the global setup), from `cwd` when given. */
export function runCli(args: string[], env: Record<string, string>, options: { cwd?: string; bin?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const run = { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, timeout: 20_000, cwd: options.cwd };
    execFile(process.execPath, [options.bin ?? BIN, ...args], run, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

export async function cliJson<T>(args: string[], env: Record<string, string>, options: { bin?: string } = {}): Promise<T> {
  const r = await runCli([...args, '--json'], env, options);
  if (r.code !== 0) throw new Error(`wallet-vault ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/**
 * `wallet-vault migrate` on the store `env` names: what an operator runs once before the other commands
 * on a new database (only `serve` and `migrate` create tables). Resolves the schema versions it reports.
 */
export function migrateStore(env: Record<string, string>, options: { bin?: string } = {}): Promise<{ database: string; schema?: string; from: number; to: number }> {
  return cliJson(['migrate'], env, options);
}

/**
 * `migrate` with the given build's CLI, for benchmarks that set up an older build beside this one (a build
 * refuses a database of a newer schema, so each sets up its own): a build from before `migrate` existed
 * (9da3762 and older) creates its tables at its first command instead, so its refusal of the command is
 * no failure.
 */
export async function migrateWithBuild(env: Record<string, string>, bin: string | undefined): Promise<void> {
  await migrateStore(env, { bin }).catch((error: Error) => {
    if (bin === undefined || !error.message.includes("unknown command 'migrate'")) throw error;
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface ChildServer {
  readonly url: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/**
 * `wallet-vault serve` in its own process, as an operator runs it; resolves once /healthz answers.
 * `nodeArgs` go to node itself (the profiling benchmark passes `--cpu-prof`); `bin` is another build's
 * entry point (the sign benchmark compares two builds).
 */
export async function spawnServer(env: Record<string, string>, nodeArgs: readonly string[] = [], bin = BIN): Promise<ChildServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve'], {
    // No scheduled audit checkpoint unless asked for (see test-server.ts).
    env: { ...process.env, LOG_LEVEL: 'warn', VAULT_AUDIT_CHECKPOINT_INTERVAL_SECONDS: '0', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      if (i > 300) throw new Error(`server did not start: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    child,
    output: () => output,
    kill: async (signal) => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
