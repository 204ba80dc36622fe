import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from '../../adapters/main/node-flags.js';
import { cliJson, spawnServer, migrateWithBuild } from '../../test/support/cli.js';
import type { LoadOptions } from './load.js';
import { SIGN_ABI as abi, SIGN_ARGS as args, SIGN_CONTRACT as contract, SIGN_SENDER as sender, SIGN_UNIQ as uniq } from './sign-request.js';

/** A server under a sign benchmark: its process, the request that signs, and how to stop it. */
export interface SignTarget {
  readonly pid: number;
  readonly request: Omit<LoadOptions, 'durationSeconds' | 'connections' | 'amount'>;
  /** The service's vault (startService only): its URL, the headers of its API key, the signer wallet. */
  readonly vault?: { readonly url: string; readonly headers: Record<string, string>; readonly wallet: string };
  stop(): Promise<void>;
}

/**
 * The references the service is measured against: `bare`, the floor (bare node:http doing the same
 * cryptographic work, storing nothing); `durable`, the same floor also appending each sign's record to a
 * file and answering only after a group-committed fdatasync covers it; `durable-serial`, the durable floor
 * with one sync at a time, as the service syncs (see DurableJournal); `peer`, Express + ethers v6 with
 * no storage (what a team writes instead).
 */
export type ReferenceKind = 'bare' | 'durable' | 'durable-serial' | 'peer';

const REFERENCE_LABELS: Record<ReferenceKind, string> = {
  bare: 'bare floor: node:http + libsecp256k1',
  durable: 'durable floor: bare + append + fdatasync per turn',
  'durable-serial': 'durable floor, one fdatasync at a time',
  peer: 'peer: Express + ethers v6, no storage',
};

/** A reference server in its own process, as the service runs: with the node flags the service ships with. */
export async function startFloor(kind: ReferenceKind = 'bare', nodeArgs: readonly string[] = []): Promise<SignTarget> {
  const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sign-floor.main.js');
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, entry, kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid!,
    request: {
      label: REFERENCE_LABELS[kind],
      url: `${url}/sign`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ abi, args, uniq, sender }),
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const SIGNATURE_TEXT = 'mint(address to, uint256 amount, string memo, (bytes32,bytes32,bytes32,uint8) sig)';
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
/**
 * Argument rules on the signed function that the benchmark's request passes, so each sign checks all of
 * them: `--arg` and one operator each, grouped by argument (one CLI call per argument).
 */
const PASSING_RULES: readonly (readonly [string, string, string])[] = [
  ['to', '--address-in', `${args[0]},${OTHER}`],
  ['to', '--eq', args[0]!],
  ['to', '--in', `${OTHER},${args[0]}`],
  ['amount', '--lte', '1000000000000000000000'],
  ['amount', '--gte', '1'],
  ['amount', '--in', `2,${args[1]}`],
  ['memo', '--max-length', '64'],
  ['memo', '--eq', args[2]!],
  ['memo', '--in', `x,${args[2]}`],
  ['amount', '--lte', String(2n ** 255n)],
];

/** BENCH_SIGN_RULES=n (at most 10): the service's vault holds the first n of PASSING_RULES. */
async function addPassingRules(dataDir: string, vaultId: string): Promise<void> {
  const count = Number(process.env.BENCH_SIGN_RULES ?? 0);
  if (!Number.isInteger(count) || count < 0 || count > PASSING_RULES.length) throw new Error(`BENCH_SIGN_RULES: 0 to ${PASSING_RULES.length}`);
  const byArg = new Map<string, string[]>();
  for (const [arg, op, value] of PASSING_RULES.slice(0, count)) byArg.set(arg, [...(byArg.get(arg) ?? []), op, value]);
  for (const [arg, ops] of byArg) {
    await cliJson(['policies', 'rules', 'add', '--vault', vaultId, '--function', SIGNATURE_TEXT, '--arg', arg, ...ops], { VAULT_DATA_DIR: dataDir });
  }
}

/**
 * `wallet-vault serve` (SQLite, local key store; one process unless `workers` > 1) on a fresh data
 * directory with a vault, an API key and a signer wallet; one sign is checked before it is handed over.
 * With workers, `pid` is the primary's: its CPU time is not the workers'.
 */
export async function startService(
  nodeArgs: readonly string[] = [],
  workers = 1,
  bin?: string,
  /** Run on the data directory before the server starts (a CLI command's effect is then certain to be seen). */
  setup?: (dataDir: string, vaultId: string) => Promise<void>,
  /** More of the server's environment (bench:standard-sign: a chain whose RPC is a local anvil). */
  env: Readonly<Record<string, string>> = {},
): Promise<SignTarget> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-bench-'));
  // The data directory is made by the build under test: a build refuses a database of a newer schema.
  await migrateWithBuild({ VAULT_DATA_DIR: dataDir }, bin);
  const vault = await cliJson<{ id: string }>(['vaults', 'create', '--name', 'bench'], { VAULT_DATA_DIR: dataDir }, { bin });
  const { apiKey } = await cliJson<{ apiKey: string }>(['api-keys', 'create', '--vault', vault.id], { VAULT_DATA_DIR: dataDir }, { bin });
  // Only this build's service: a baseline build may not know the command.
  if (bin === undefined) await addPassingRules(dataDir, vault.id);
  await setup?.(dataDir, vault.id);
  // Started as `npm start` starts it: with the server's node flags (adapters/main/node-flags.ts).
  const server = await spawnServer({ ...env, VAULT_DATA_DIR: dataDir, VAULT_WORKERS: String(workers) }, [...SERVER_NODE_FLAGS, ...nodeArgs], bin);
  const stop = async () => {
    await server.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/api/v1/vaults/${vault.id}/wallets`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'signer' }),
    });
    const wallet = ((await created.json()) as { data: { address: string } }).data;
    const body = JSON.stringify({ chain: 'local', contract, sender, uniq, signer: wallet.address, abi, args });
    const url = `${server.url}/api/v1/vaults/${vault.id}/sign`;
    const check = await fetch(url, { method: 'POST', headers, body });
    if (check.status !== 200) throw new Error(`sign failed: ${check.status} ${await check.text()}`);
    const rules = bin === undefined && process.env.BENCH_SIGN_RULES ? `, ${process.env.BENCH_SIGN_RULES} argument rules` : '';
    const label = `wallet-vault POST /sign (${workers === 1 ? '1 process' : `VAULT_WORKERS=${workers}`}${rules})${bin ? ` ${bin}` : ''}`;
    const vaultUrl = `${server.url}/api/v1/vaults/${vault.id}`;
    return { pid: server.child.pid!, request: { label, url, method: 'POST', headers, body }, vault: { url: vaultUrl, headers, wallet: wallet.address }, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
