import { existsSync } from 'node:fs';
import { mkdir, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A CPU slice of its own for one process, as if it ran on a machine with `cores` cores: a cgroup with a
 * CFS quota (cgroup v1 `cpu.cfs_quota_us` under /sys/fs/cgroup/cpu, or cgroup v2 `cpu.max`). Needs root.
 */
export interface CpuSlice {
  readonly name: string;
  /** Moves the process (all its threads) into the slice. */
  add(pid: number): Promise<void>;
  /** Removes the slice; its processes must have exited (or been moved out). */
  remove(): Promise<void>;
}

const V1_ROOT = '/sys/fs/cgroup/cpu';
const V2_ROOT = '/sys/fs/cgroup';
const PERIOD_US = 100_000;

/** Which cgroup hierarchy this machine offers for CPU quotas, or why none can be used. */
export function cgroupKind(): { kind: 'v1' | 'v2' } | { problem: string } {
  if (process.getuid?.() !== 0) return { problem: 'creating CPU cgroups needs root' };
  if (existsSync(path.join(V1_ROOT, 'cpu.cfs_quota_us'))) return { kind: 'v1' };
  if (existsSync(path.join(V2_ROOT, 'cgroup.controllers'))) return { kind: 'v2' };
  return { problem: `neither cgroup v1 (${V1_ROOT}/cpu.cfs_quota_us) nor cgroup v2 (${V2_ROOT}/cgroup.controllers) is mounted` };
}

/** Creates the slice `name` with a quota of `cores` (0.3: 30 ms of CPU per 100 ms). Throws saying why it cannot. */
export async function createCpuSlice(name: string, cores: number): Promise<CpuSlice> {
  const found = cgroupKind();
  if ('problem' in found) throw new Error(`cannot create CPU cgroups: ${found.problem}`);
  const quota = String(Math.round(cores * PERIOD_US));
  const dir = path.join(found.kind === 'v1' ? V1_ROOT : V2_ROOT, name);
  try {
    if (existsSync(dir)) await rmdir(dir); // left by an interrupted run (fails while it holds processes)
    await mkdir(dir);
    if (found.kind === 'v1') {
      await writeFile(path.join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      await writeFile(path.join(dir, 'cpu.cfs_quota_us'), quota);
    } else {
      // The cpu controller must be enabled for the root's children; harmless when it already is.
      await writeFile(path.join(V2_ROOT, 'cgroup.subtree_control'), '+cpu').catch(() => undefined);
      await writeFile(path.join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
    }
  } catch (error) {
    await rmdir(dir).catch(() => undefined);
    throw new Error(`cannot create the CPU cgroup ${dir}: ${(error as Error).message}`);
  }
  return {
    name: dir,
    add: (pid) => writeFile(path.join(dir, 'cgroup.procs'), String(pid)),
    remove: () => rmdir(dir),
  };
}

/**
 * Node flags that move the process into `slice` before any of its own code runs (a preload module), so it
 * starts there as a process in a CPU-limited container does: what it reads of its CPU at start (the
 * service's CPU budget, adapters/system/cpu-budget.ts) is the slice's quota.
 */
export function startInSlice(slice: CpuSlice): string[] {
  const code = `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(path.join(slice.name, 'cgroup.procs'))}, String(process.pid));`;
  return ['--import', `data:text/javascript,${encodeURIComponent(code)}`];
}
