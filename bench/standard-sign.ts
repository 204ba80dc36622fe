import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { parseEther } from 'ethers';
import { postJson } from '../adapters/chain/json-post.js';
import { startAnvil } from '../test/support/anvil.js';
import { cliJson } from '../test/support/cli.js';
import { measureCpuPerRequest, printCpuHeading, printCpuRow } from './support/cpu.js';
import { median, printTable, runLoad, type LoadOptions, type LoadResult } from './support/load.js';
import { startService, type SignTarget } from './support/sign-servers.js';

/**
 * Issue 23's speed goal: sign-message and sign-transaction reach at least 0.8 of Sign's throughput on
 * the same machine. One service (one process, SQLite, local key store; bench:sign's), one vault whose
 * policy allows the messages, typed data and transactions sent; Sign, sign-message, sign-transaction
 * and sign-typed-data driven in turn against that same server at 32 connections, `rounds` rounds each in
 * a rotated order, the ratios taken within each round and their medians reported. With `cpu-signs` > 0,
 * the server's CPU time per request of each over that many requests follows.
 *
 * Issue 40's cost bound: a transaction on a chain with an RPC is simulated before it is signed, which must
 * add at most one RPC round trip. A local anvil is the RPC of a chain `devnet` (31337), behind a proxy in
 * this process that counts the calls it passes; `sign-transaction (simulated)` is the same transfer on
 * devnet, measured in the same rounds as the unsimulated one on chain 1 (no RPC), and the report gives
 * their ratio, the RPC calls per simulated transaction, and a bare eth_call to anvil at the same
 * connections as the reference of one round trip.
 * Usage: npm run bench:standard-sign [-- seconds [rounds [cpu-signs]]]
 * BENCH_BASELINE_BIN=<other checkout>/bin/wallet-vault.js starts that build's service too (built there, its
 * data directory made by its own CLI), and measures each request on it right after this build's, in the
 * same rounds: the report adds this build / baseline per request, an A/B on a machine whose load moves.
 */
const seconds = Number(process.argv[2] ?? 6);
const rounds = Number(process.argv[3] ?? 3);
const cpuSigns = Number(process.argv[4] ?? 0);
const CONNECTIONS = 32;
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';

const anvil = await startAnvil();
/** JSON-RPC calls the proxy passed to anvil, by method. */
const rpcCalls = new Map<string, number>();
const proxy: Server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    const body = Buffer.concat(chunks);
    const method = (JSON.parse(body.toString('utf8')) as { method?: string }).method ?? '?';
    rpcCalls.set(method, (rpcCalls.get(method) ?? 0) + 1);
    // Over the relay's own kept-alive node:http transport: the proxy must cost little beside the call it counts.
    const answer = await postJson(anvil.rpcUrl, body.toString('utf8'), 5000, 1024 * 1024);
    res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
  });
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

const baselineBin = process.env.BENCH_BASELINE_BIN;
/** The service of `bin` (this build when undefined), its vault's policy set by that build's own CLI. */
const startWith = (bin: string | undefined) =>
  startService(
    [],
    1,
    bin,
    async (dataDir, vaultId) => {
      await cliJson(
        ['policies', 'set', '--vault', vaultId, '--messages', '--tx-chain-ids', '1,31337', '--tx-to', RECIPIENT, '--tx-max-value', '1000000000000000000', '--typed-data-contracts', `1:${TOKEN}`],
        { VAULT_DATA_DIR: dataDir },
        { bin },
      );
    },
    { VAULT_CHAINS: 'devnet:31337', VAULT_RPC_URL_DEVNET: process.env.BENCH_RPC_DIRECT ? anvil.rpcUrl : proxyUrl },
  );
const target = await startWith(undefined);
const baseline = baselineBin === undefined ? undefined : await startWith(baselineBin);

type Name = 'sign' | 'message' | 'transaction' | 'simulated' | 'typedData';
const NAMES: readonly Name[] = ['sign', 'message', 'transaction', 'simulated', 'typedData'];
const post = (vault: NonNullable<SignTarget['vault']>, label: string, operation: string, body: unknown): Omit<LoadOptions, 'connections'> => ({
  label,
  url: `${vault.url}/wallets/${vault.wallet}/${operation}`,
  method: 'POST',
  headers: vault.headers,
  body: JSON.stringify(body),
});
const transfer = (chainId: number) => ({
  type: 'eip1559',
  chainId,
  nonce: 7,
  to: RECIPIENT,
  value: '10000000000000000',
  gas: '21000',
  maxFeePerGas: '30000000000',
  maxPriorityFeePerGas: '1000000000',
});
/** The five requests against one service (its vault, wallet and API key); `suffix` marks the baseline's labels. */
function requestsOf(service: SignTarget, suffix = ''): Record<Name, Omit<LoadOptions, 'connections'>> {
  const vault = service.vault!;
  return {
    sign: { ...service.request, label: `POST /sign (Sign)${suffix}` },
    message: post(vault, `POST …/sign-message${suffix}`, 'sign-message', { message: 'Sign in to example.org at 2026-11-25T12:00:00Z, nonce 8f3a2c' }),
    transaction: post(vault, `POST …/sign-transaction (eip1559 transfer)${suffix}`, 'sign-transaction', transfer(1)),
    simulated: post(vault, `POST …/sign-transaction (the same on devnet: simulated on anvil first)${suffix}`, 'sign-transaction', transfer(31337)),
    typedData: post(vault, `POST …/sign-typed-data (EIP-2612 permit)${suffix}`, 'sign-typed-data', {
      domain: { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: TOKEN },
      types: {
        Permit: ['owner', 'spender', 'value', 'nonce', 'deadline'].map((name) => ({ name, type: name === 'owner' || name === 'spender' ? 'address' : 'uint256' })),
      },
      primaryType: 'Permit',
      message: { owner: vault.wallet, spender: RECIPIENT, value: '1000000', nonce: '0', deadline: '1798761600' },
    }),
  };
}
const vault = target.vault!;
const REQUESTS = requestsOf(target);
const BASELINE_REQUESTS = baseline ? requestsOf(baseline, ` (${baselineBin})`) : undefined;

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

try {
  // The wallet pays the transfer's value in the simulation: funded on anvil.
  await (await anvil.account(0).sendTransaction({ to: vault.wallet, value: parseEther('1000') })).wait();
  if (baseline) await (await anvil.account(0).sendTransaction({ to: baseline.vault!.wallet, value: parseEther('1000') })).wait();
  for (const requests of [REQUESTS, ...(BASELINE_REQUESTS ? [BASELINE_REQUESTS] : [])]) {
    for (const name of NAMES) {
      const check = await fetch(requests[name].url, { method: 'POST', headers: requests[name].headers, body: requests[name].body });
      if (check.status !== 200) throw new Error(`${requests[name].label}: ${check.status} ${await check.text()}`);
    }
  }
  const results: Record<Name, LoadResult>[] = [];
  const baselineResults: Record<Name, LoadResult>[] = [];
  const simulatedCalls: { requests: number; calls: (readonly [string, number])[] }[] = [];
  // One round trip's reference: a bare eth_call to anvil (straight, not through the proxy) at the same connections.
  const bareCall = {
    label: 'eth_call to anvil (a bare round trip, the reference)',
    url: anvil.rpcUrl,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ from: vault.wallet, to: RECIPIENT, value: '0x2386f26fc10000', gas: '0x5208' }, 'pending'] }),
  };
  for (let round = 0; round < rounds; round++) {
    const order = NAMES.map((_, i) => NAMES[(i + round) % NAMES.length]!);
    const measured = {} as Record<Name, LoadResult>;
    const measuredBaseline = {} as Record<Name, LoadResult>;
    for (const name of order) {
      const before = new Map(rpcCalls);
      measured[name] = await runLoad({ ...REQUESTS[name], connections: CONNECTIONS, durationSeconds: seconds });
      if (name === 'simulated') simulatedCalls.push({ requests: measured[name].total, calls: [...rpcCalls].map(([m, n]) => [m, n - (before.get(m) ?? 0)] as const).filter(([, n]) => n > 0) });
      // Right after this build's, so both see the same moment of the machine's load.
      if (BASELINE_REQUESTS) measuredBaseline[name] = await runLoad({ ...BASELINE_REQUESTS[name], connections: CONNECTIONS, durationSeconds: seconds });
    }
    results.push(measured);
    if (BASELINE_REQUESTS) baselineResults.push(measuredBaseline);
    console.log(`\nround ${round + 1} (order ${order.join(', ')}; load average ${load()})`);
    printTable(NAMES.flatMap((n) => (BASELINE_REQUESTS ? [measured[n], measuredBaseline[n]] : [measured[n]])));
  }
  const ratio = (r: Record<Name, LoadResult>, name: Name) => r[name].requestsPerSecond / r.sign.requestsPerSecond;
  console.log(`\n| medians over ${rounds} rounds of ${seconds} s, one server | req/s | p99 ms | of Sign's req/s (median of the rounds' ratios) |`);
  console.log('|---|---|---|---|');
  for (const name of NAMES) {
    const rate = median(results.map((r) => r[name].requestsPerSecond));
    const p99 = median(results.map((r) => r[name].p99Ms));
    console.log(`| ${REQUESTS[name].label} | ${rate} | ${p99} | ${name === 'sign' ? '' : median(results.map((r) => ratio(r, name))).toFixed(2)} |`);
  }
  const simulatedRatio = median(results.map((r) => r.simulated.requestsPerSecond / r.transaction.requestsPerSecond));
  console.log(`\nsimulated / unsimulated sign-transaction per round: ${results.map((r) => (r.simulated.requestsPerSecond / r.transaction.requestsPerSecond).toFixed(2)).join(' / ')}; median ${simulatedRatio.toFixed(2)}`);
  for (const [i, run] of simulatedCalls.entries()) {
    const perRequest = run.calls.map(([m, n]) => `${m} ${(n / run.requests).toFixed(3)}`).join(', ');
    console.log(`round ${i + 1}: RPC calls per simulated sign-transaction (${run.requests} answered): ${perRequest || 'none'}`);
  }
  const bare = await runLoad({ ...bareCall, connections: CONNECTIONS, durationSeconds: seconds });
  printTable([bare]);
  for (const name of NAMES.filter((n) => n !== 'sign')) {
    const goal = name === 'typedData' || name === 'simulated' ? '' : ' (target >= 0.80)';
    console.log(`${name} / sign per round: ${results.map((r) => ratio(r, name).toFixed(2)).join(' / ')}${goal}`);
  }
  if (BASELINE_REQUESTS) {
    console.log(`\nthis build / baseline (${baselineBin}), req/s per round and median:`);
    for (const name of NAMES) {
      const ratios = results.map((r, i) => r[name].requestsPerSecond / baselineResults[i]![name].requestsPerSecond);
      console.log(`${name}: ${ratios.map((x) => x.toFixed(2)).join(' / ')}; median ${median(ratios).toFixed(2)}`);
    }
  }
  const failed = [...results, ...baselineResults].flatMap((r) => NAMES.map((n) => r[n].non2xx + r[n].errors)).reduce((a, b) => a + b, 0);
  console.log(`non-2xx + errors over all runs: ${failed}; load average at the end ${load()}`);

  if (cpuSigns > 0) {
    printCpuHeading(cpuSigns, 'request');
    for (const name of NAMES) {
      const cpu = await measureCpuPerRequest(target.pid, { ...REQUESTS[name], connections: CONNECTIONS, requests: cpuSigns });
      printCpuRow(cpu);
      // The baseline's right after: CPU time per request is the A/B figure that stays put while the machine's load moves.
      if (baseline && BASELINE_REQUESTS) printCpuRow(await measureCpuPerRequest(baseline.pid, { ...BASELINE_REQUESTS[name], connections: CONNECTIONS, requests: cpuSigns }));
    }
  }
} finally {
  await target.stop();
  await baseline?.stop();
  proxy.close();
  await anvil.stop();
}
