import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCpuBudget, signingThreadPays, type CpuBudgetSources } from '../../adapters/system/cpu-budget.js';
import { cgroupKind, createCpuSlice } from '../../bench/support/cpu-cgroup.js';

/** A fake /sys/fs/cgroup and /proc/self/cgroup in a directory of the test's own. */
function machine(files: Record<string, string>, procCgroup: string, cpus = 8): CpuBudgetSources & { readonly dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'cpu-budget-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, 'sys', file)), { recursive: true });
    writeFileSync(path.join(dir, 'sys', file), text);
  }
  writeFileSync(path.join(dir, 'proc-cgroup'), procCgroup);
  dirs.push(dir);
  return {
    dir,
    cgroupRoot: path.join(dir, 'sys'),
    procCgroup: path.join(dir, 'proc-cgroup'),
    parallelism: () => cpus,
    read: (file) => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the CPU budget', () => {
  it("is the cgroup v2 quota of the process's cgroup (docker --cpus=0.5), not the host's eight CPUs", () => {
    const m = machine({ 'cpu.max': 'max 100000\n', 'app/cpu.max': '50000 100000\n' }, '0::/app\n');
    const budget = readCpuBudget(m);
    expect(budget).toEqual({ cores: 0.5, parallelism: 8, quota: { cores: 0.5, source: 'cgroup v2', file: path.join(m.cgroupRoot, 'app', 'cpu.max') } });
    expect(signingThreadPays(budget)).toBe(false);
  });

  it("takes a parent's tighter quota (a Kubernetes pod limit over its container)", () => {
    const m = machine({ 'kubepods/cpu.max': '150000 100000', 'kubepods/pod1/cpu.max': '25000 100000', 'kubepods/pod1/c1/cpu.max': 'max 100000' }, '0::/kubepods/pod1/c1\n');
    expect(readCpuBudget(m).cores).toBe(0.25);
  });

  it('reads cgroup v1 cfs_quota_us over cfs_period_us, where -1 means no quota', () => {
    const m = machine(
      { 'cpu/cpu.cfs_quota_us': '-1', 'cpu/cpu.cfs_period_us': '100000', 'cpu/docker/abc/cpu.cfs_quota_us': '150000', 'cpu/docker/abc/cpu.cfs_period_us': '100000' },
      '4:cpu,cpuacct:/docker/abc\n2:memory:/docker/abc\n',
    );
    const budget = readCpuBudget(m);
    expect(budget.cores).toBe(1.5);
    expect(budget.quota?.source).toBe('cgroup v1');
    expect(signingThreadPays(budget)).toBe(true);
  });

  it("reads the mount's root when the process's path is the host's (a container without a cgroup namespace)", () => {
    const m = machine({ 'cpu,cpuacct/cpu.cfs_quota_us': '50000', 'cpu,cpuacct/cpu.cfs_period_us': '100000' }, '4:cpu,cpuacct:/docker/0123456789\n');
    expect(readCpuBudget(m).cores).toBe(0.5);
  });

  it('is the CPUs the process may run on when no quota is set, or none can be read', () => {
    expect(readCpuBudget(machine({ 'cpu.max': 'max 100000' }, '0::/\n', 4))).toEqual({ cores: 4, parallelism: 4, quota: null });
    expect(readCpuBudget(machine({}, 'garbage', 2))).toEqual({ cores: 2, parallelism: 2, quota: null });
    // A quota above the CPUs there are: the CPUs bind.
    expect(readCpuBudget(machine({ 'cpu.max': '800000 100000' }, '0::/\n', 2)).cores).toBe(2);
    expect(signingThreadPays(readCpuBudget(machine({}, '', 1)))).toBe(false);
  });

  const cgroups = cgroupKind();
  it.skipIf('problem' in cgroups)(
    `is read from a real cgroup of half a core this machine gives a process${'problem' in cgroups ? ` (skipped: ${cgroups.problem})` : ''}`,
    async () => {
      const slice = await createCpuSlice(`wallet-vault-test-budget-${process.pid}`, 0.5);
      try {
        // A shell moved into the slice first, then node started in it (the build's module, test/support/build.global-setup.ts):
        // the child is a member from its first instruction.
        const script = `import { readCpuBudget } from ${JSON.stringify(new URL('../../dist/adapters/system/cpu-budget.js', import.meta.url).href)}; console.log(JSON.stringify(readCpuBudget()));`;
        const out = execFileSync('sh', ['-c', `echo $$ > ${path.join(slice.name, 'cgroup.procs')} && exec node --input-type=module -e "$0"`, script], { encoding: 'utf8' });
        const budget = JSON.parse(out) as ReturnType<typeof readCpuBudget>;
        expect(budget.cores).toBe(0.5);
        expect(budget.quota?.file.startsWith(slice.name)).toBe(true);
      } finally {
        await slice.remove();
      }
    },
  );
});
