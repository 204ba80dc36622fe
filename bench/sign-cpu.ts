import path from 'node:path';
import { measureCpuPerRequest } from './support/cpu.js';
import { median } from './support/load.js';
import { startService, type SignTarget } from './support/sign-servers.js';

/**
 * Server CPU per sign of this build beside other builds, each server started once and measured in turn,
 * round after round (the order rotated each round), so that a build's figure is never taken at a calmer
 * moment of the machine than another's. On a shared 2-core machine throughput ratios swing by a tenth from
 * one run to the next while CPU per sign moves less: this is the A/B to run before and after a change to
 * the sign path. Each server is set up as bench:sign sets up the service (SQLite, the local key store,
 * `npm start`'s node flags; this build's vault also gets the passing argument rules of BENCH_SIGN_RULES).
 * Each round: `signs` signs over 32 connections per server, after 2 000 unmeasured signs in the first round.
 * Usage: npm run bench:sign-cpu -- <other checkout> [...] (each built there with its own `npm run build`);
 * BENCH_CPU_ROUNDS=n (default 8), BENCH_CPU_SIGNS=n (default 4000).
 */
const rounds = Number(process.env.BENCH_CPU_ROUNDS ?? 8);
const signs = Number(process.env.BENCH_CPU_SIGNS ?? 4000);
const others = process.argv.slice(2).map((checkout) => path.join(path.resolve(checkout), 'bin/wallet-vault.js'));
if (others.length === 0) throw new Error('usage: npm run bench:sign-cpu -- <other checkout> [...]');

const names = ['this build', ...others.map((bin) => path.dirname(path.dirname(bin)))];
const bins: (string | undefined)[] = [undefined, ...others];
const targets: SignTarget[] = [];
try {
  for (const bin of bins) targets.push(await startService([], 1, bin));
  const total = bins.map((): number[] => []);
  const loop = bins.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < bins.length; k++) {
      const i = (k + round) % bins.length;
      const target = targets[i]!;
      const run = await measureCpuPerRequest(target.pid, {
        ...target.request,
        label: names[i]!,
        connections: 32,
        requests: signs,
        warmup: round === 0 ? 2_000 : 200,
      });
      if (run.non2xx > 0) throw new Error(`${names[i]}: ${run.non2xx} signs failed`);
      if (run.cpuMicrosPerRequest === null || run.mainThreadMicrosPerRequest === null) throw new Error('no /proc here: CPU time cannot be read');
      total[i]!.push(run.cpuMicrosPerRequest);
      loop[i]!.push(run.mainThreadMicrosPerRequest);
    }
    console.log(`round ${round + 1}: ${names.map((n, i) => `${n} ${total[i]!.at(-1)!.toFixed(0)} µs (loop ${loop[i]!.at(-1)!.toFixed(0)})`).join(', ')}`);
  }
  console.log(`\n| server CPU per sign (${rounds} rounds of ${signs} signs, 32 connections) | µs, median | event loop µs, median | / this build, per round | / this build, median | loop / this build's, median |`);
  console.log('|---|---|---|---|---|---|');
  for (let i = 0; i < bins.length; i++) {
    const ratios = total[i]!.map((c, r) => c / total[0]![r]!);
    const loopRatios = loop[i]!.map((c, r) => c / loop[0]![r]!);
    console.log(
      `| ${names[i]} | ${median(total[i]!).toFixed(0)} | ${median(loop[i]!).toFixed(0)} | ${ratios.map((x) => x.toFixed(2)).join(' / ')} | ${median(ratios).toFixed(3)} | ${median(loopRatios).toFixed(3)} |`,
    );
  }
} finally {
  for (const target of targets) await target.stop();
}
