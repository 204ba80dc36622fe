import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root, whether run from bench/ sources or dist/bench. */
export const repoRoot = path.resolve(fileURLToPath(import.meta.url), '../../..').replace(/\/dist$/, '');
const bin = path.join(repoRoot, 'bin/wallet-vault.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Runs a CLI command on a data directory and returns its parsed --json output. */
export function cli<T>(dataDir: string, args: string[]): T {
  const out = execFileSync(process.execPath, [bin, ...args, '--json'], {
    env: { ...process.env, VAULT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
  });
  return JSON.parse(out.toString()) as T;
}

export interface ChildServer {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** The production entry point (`wallet-vault serve`) in its own process, as an operator runs it. */
export async function startChildServer(dataDir: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, VAULT_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
