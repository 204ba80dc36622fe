import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContractFactory, HDNodeWallet, JsonRpcProvider, NonceManager, type Contract, type InterfaceAbi } from 'ethers';
import { freePort } from './cli.js';

// From dist-bench/test/support too (bench:standard-sign starts one): the checkout's root either way.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..').replace(/\/dist-bench$/, '');
const MNEMONIC = 'test test test test test test test test test test test junk';

export interface Anvil {
  readonly rpcUrl: string;
  readonly provider: JsonRpcProvider;
  /** Funded accounts of anvil's default mnemonic, each with its own nonce manager. */
  account(index: number): NonceManager;
  stop(): Promise<void>;
}

/** A real EVM on a free loopback port, stopped by `stop()` (call it in afterAll). */
export async function startAnvil(options: { chainId?: number } = {}): Promise<Anvil> {
  const port = await freePort();
  const args = ['--port', String(port), '--host', '127.0.0.1', '--silent'];
  if (options.chainId !== undefined) args.push('--chain-id', String(options.chainId));
  const child: ChildProcess = spawn(path.join(repoRoot, 'node_modules/.bin/anvil'), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const rpcUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`anvil exited (${child.exitCode}): ${stderr}`);
    try {
      const r = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (r.ok) break;
    } catch {
      if (i > 400) throw new Error(`anvil did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  // cacheTimeout -1: ethers must not serve cached nonces or calls between our transactions.
  const provider = new JsonRpcProvider(rpcUrl, undefined, { cacheTimeout: -1 });
  const accounts = new Map<number, NonceManager>();
  return {
    rpcUrl,
    provider,
    account: (index) => {
      let a = accounts.get(index);
      if (!a) {
        a = new NonceManager(HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`).connect(provider));
        accounts.set(index, a);
      }
      return a;
    },
    stop: async () => {
      provider.destroy();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export function loadArtifact(name: string): { abi: InterfaceAbi; bytecode: string } {
  return JSON.parse(readFileSync(path.join(repoRoot, 'test/chain/.artifacts', `${name}.json`), 'utf8'));
}

export async function deploy(anvil: Anvil, name: string, args: unknown[], deployer = 0): Promise<Contract> {
  const { abi, bytecode } = loadArtifact(name);
  const contract = await new ContractFactory(abi, bytecode, anvil.account(deployer)).deploy(...args);
  await contract.waitForDeployment();
  return contract as Contract;
}
