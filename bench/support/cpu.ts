import { readFileSync } from 'node:fs';
import { runLoad, type LoadOptions } from './load.js';

/**
 * CPU time (user + system) a process has used so far, in microseconds, read from /proc/<pid>/stat
 * (Linux). CPU per request barely moves when other work shares the machine, where throughput does:
 * it is the figure to compare on a busy machine. Returns null where /proc is not available.
 */
export function processCpuMicros(pid: number): number | null {
  return cpuMicrosOf(`/proc/${pid}/stat`);
}

/**
 * The same for the process's main thread alone (its task id is the pid): the event loop's CPU, without
 * libuv's thread pool or worker threads. One process's sign throughput is bounded by this figure.
 */
export function mainThreadCpuMicros(pid: number): number | null {
  return cpuMicrosOf(`/proc/${pid}/task/${pid}/stat`);
}

function cpuMicrosOf(file: string): number | null {
  let stat: string;
  try {
    stat = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  // Fields after the parenthesised command name (which may hold spaces): utime and stime are fields 14, 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / CLOCK_TICKS_PER_SECOND;
}

// USER_HZ: 100 on every Linux architecture Node supports.
const CLOCK_TICKS_PER_SECOND = 100;

export interface CpuResult {
  readonly label: string;
  readonly requests: number;
  /** Server CPU per request in µs, or null when it could not be read. */
  readonly cpuMicrosPerRequest: number | null;
  /** The part of it on the event loop's thread. */
  readonly mainThreadMicrosPerRequest: number | null;
  readonly non2xx: number;
}

/**
 * Sends exactly `requests` requests (after `warmup` more) and divides the server process's CPU time over
 * them by their number. With a 10 ms clock tick, 20 000 requests of a few hundred µs each read to ~0.1 %.
 */
export async function measureCpuPerRequest(
  pid: number,
  o: Omit<LoadOptions, 'durationSeconds'> & { requests: number; warmup?: number },
): Promise<CpuResult> {
  await runLoad({ ...o, amount: o.warmup ?? 2_000 });
  const before = processCpuMicros(pid);
  const mainBefore = mainThreadCpuMicros(pid);
  const run = await runLoad({ ...o, amount: o.requests });
  const after = processCpuMicros(pid);
  const mainAfter = mainThreadCpuMicros(pid);
  return {
    mainThreadMicrosPerRequest: mainBefore === null || mainAfter === null ? null : (mainAfter - mainBefore) / o.requests,
    label: o.label,
    requests: o.requests,
    cpuMicrosPerRequest: before === null || after === null ? null : (after - before) / o.requests,
    non2xx: run.non2xx + run.errors,
  };
}

/** The heading of a table of CPUResults (`what`: `sign` or `request`). */
export function printCpuHeading(requests: number, what: string): void {
  console.log(`\n| server CPU per ${what} (${requests} ${what}s, 32 connections) | µs | of which the event loop's thread | non-2xx + errors |`);
  console.log('|---|---|---|---|');
}

export function printCpuRow(cpu: CpuResult): void {
  console.log(`| ${cpu.label} | ${cpu.cpuMicrosPerRequest?.toFixed(0) ?? 'n/a'} | ${cpu.mainThreadMicrosPerRequest?.toFixed(0) ?? 'n/a'} | ${cpu.non2xx} |`);
}
