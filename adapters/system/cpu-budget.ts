import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';

/**
 * The CPU this process is given: the CPUs it may run on (`os.availableParallelism()`, which honours an
 * affinity mask or `--cpuset-cpus`) and, tighter in most containers, its cgroup's CPU quota (`--cpus`,
 * a Kubernetes CPU limit). Node reports only the first: in a container limited to half a core it still
 * sees every core of the host, and a worker thread started for a second core then only takes turns with
 * the event loop inside the same half core, paying a hand-off per sign for nothing.
 */
export interface CpuBudget {
  /** The cores of CPU time this process may use: the smaller of `parallelism` and the quota (0.5: half a core). */
  readonly cores: number;
  /** The CPUs it may be scheduled on (`os.availableParallelism()`). */
  readonly parallelism: number;
  /** The tightest CPU quota of its cgroup and the cgroup's ancestors, or null when none is set (or none can be read). */
  readonly quota: CpuQuota | null;
}

export interface CpuQuota {
  /** Quota over period: 0.5 is 50 ms of CPU time per 100 ms. */
  readonly cores: number;
  readonly source: 'cgroup v1' | 'cgroup v2';
  /** The file that set it (`/sys/fs/cgroup/…/cpu.max`, `…/cpu.cfs_quota_us`). */
  readonly file: string;
}

/** Where the budget is read from; tests point it at a directory of their own. */
export interface CpuBudgetSources {
  /** Reads a file as text, or returns undefined when it cannot. */
  readonly read: (file: string) => string | undefined;
  readonly parallelism: () => number;
  /** Where the cgroup file systems are mounted (default /sys/fs/cgroup). */
  readonly cgroupRoot: string;
  /** This process's cgroup membership (default /proc/self/cgroup). */
  readonly procCgroup: string;
}

const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

const SYSTEM_SOURCES: CpuBudgetSources = { read: readText, parallelism: availableParallelism, cgroupRoot: '/sys/fs/cgroup', procCgroup: '/proc/self/cgroup' };

/** The budget as the system reports it now (read once per call: a few small files). */
export function readCpuBudget(sources: CpuBudgetSources = SYSTEM_SOURCES): CpuBudget {
  const parallelism = Math.max(1, sources.parallelism());
  const quota = cgroupQuota(sources);
  return { cores: quota ? Math.min(parallelism, quota.cores) : parallelism, parallelism, quota };
}

let systemBudget: CpuBudget | undefined;
/** The system's budget, read at the first call: the quota of a running container does not change under it. */
export function cpuBudget(): CpuBudget {
  return (systemBudget ??= readCpuBudget());
}

/**
 * Whether a worker thread can sign beside the event loop: only with more than one core of CPU time. At
 * one core or less the two would share the same time slice and every sign would pay the hand-off.
 */
export const signingThreadPays = (budget: CpuBudget): boolean => budget.cores > 1;

/** One line of /proc/self/cgroup: `hierarchy-id:controllers:path` (cgroup v2: `0::/path`). */
interface Membership {
  readonly controllers: readonly string[];
  readonly path: string;
}

function memberships(text: string): Membership[] {
  return text
    .split('\n')
    .map((line) => line.match(/^\d+:([^:]*):(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ controllers: m[1] === '' ? [] : m[1]!.split(','), path: m[2]! }));
}

/**
 * The tightest quota on the way from this process's cgroup up to the mount's root: a limit set on a
 * parent (a Kubernetes pod, a systemd slice) binds every child. Inside a container with its own cgroup
 * namespace the path reads `/` and the mount's root is the container's cgroup; without one the path is
 * the host's, absent from the container's mount, and the mount's root is read instead.
 */
function cgroupQuota(s: CpuBudgetSources): CpuQuota | null {
  const lines = memberships(s.read(s.procCgroup) ?? '');
  const v1 = lines.find((m) => m.controllers.includes('cpu'));
  if (v1) {
    // Mounted as `cpu`, or as `cpu,cpuacct` with `cpu` a link to it.
    for (const mount of ['cpu', v1.controllers.join(',')]) {
      const found = tightest(s, path.join(s.cgroupRoot, mount), v1.path, (dir) => v1Quota(s, dir), 'cgroup v1');
      if (found !== undefined) return found;
    }
    return null;
  }
  const v2 = lines.find((m) => m.controllers.length === 0);
  if (v2) return tightest(s, s.cgroupRoot, v2.path, (dir) => v2Quota(s, dir), 'cgroup v2') ?? null;
  return null;
}

/**
 * The smallest quota from `mountRoot/cgroupPath` up to `mountRoot`; null when that hierarchy is mounted
 * but sets none, undefined when it is not mounted there at all.
 */
function tightest(
  s: CpuBudgetSources,
  mountRoot: string,
  cgroupPath: string,
  quotaAt: (dir: string) => { cores: number; file: string } | null | undefined,
  source: CpuQuota['source'],
): CpuQuota | null | undefined {
  const parts = cgroupPath.split('/').filter((p) => p !== '' && p !== '.' && p !== '..');
  let best: CpuQuota | null = null;
  let mounted = false;
  for (let depth = parts.length; depth >= 0; depth--) {
    const found = quotaAt(path.join(mountRoot, ...parts.slice(0, depth)));
    if (found === undefined) continue; // not there: the host's path inside a container's mount
    mounted = true;
    if (found !== null && (best === null || found.cores < best.cores)) best = { ...found, source };
  }
  return mounted ? best : undefined;
}

/** `cpu.cfs_quota_us` (-1: none) over `cpu.cfs_period_us`; undefined when the directory has neither. */
function v1Quota(s: CpuBudgetSources, dir: string): { cores: number; file: string } | null | undefined {
  const file = path.join(dir, 'cpu.cfs_quota_us');
  const quota = s.read(file);
  const period = s.read(path.join(dir, 'cpu.cfs_period_us'));
  if (quota === undefined || period === undefined) return undefined;
  return coresOf(quota.trim(), period.trim(), file);
}

/** `cpu.max`: `<quota> <period>`, `max` for none; undefined when the directory has no such file. */
function v2Quota(s: CpuBudgetSources, dir: string): { cores: number; file: string } | null | undefined {
  const file = path.join(dir, 'cpu.max');
  const text = s.read(file);
  if (text === undefined) return undefined;
  const [quota, period = '100000'] = text.trim().split(/\s+/);
  return quota === undefined || quota === 'max' ? null : coresOf(quota, period, file);
}

function coresOf(quota: string, period: string, file: string): { cores: number; file: string } | null {
  const q = Number(quota);
  const p = Number(period);
  // -1 (v1) or anything unreadable: no quota here. A quota is at least 1 ms per period in the kernel.
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return null;
  return { cores: q / p, file };
}
