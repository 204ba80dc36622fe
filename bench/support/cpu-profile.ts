import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The parts of a V8 `.cpuprofile` (as `node --cpu-prof` writes it) that the breakdown reads. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** A share of the server's time, named, and how to recognise it on a call stack. */
export interface Category {
  readonly name: string;
  /** True for a frame (function name, script url) that belongs to this category. */
  readonly matches: (functionName: string, url: string) => boolean;
}

/** µs of wall time the event loop spent in each category (plus `idle`, `gc` and `other`). */
export type Breakdown = Map<string, number>;

/** The main thread's profile of the one process `node --cpu-prof --cpu-prof-dir=<dir>` ran in an otherwise empty directory. */
export function readOnlyProfile(dir: string): CpuProfile {
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: worker threads (the WAL checkpointer) write their
  // own; the event loop's thread is number 0.
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile') && f.split('.').at(-3) === '0');
  if (files.length !== 1) throw new Error(`expected one main-thread .cpuprofile in ${dir}, found ${files.length}`);
  return JSON.parse(readFileSync(path.join(dir, files[0]!), 'utf8')) as CpuProfile;
}

/**
 * Attributes every sample to the innermost frame on its stack that some category claims (so a hash inside
 * the commit counts as the commit's, and the commit is not counted as HTTP because the reply triggered it).
 * Only samples between the first and the last that `inWindow` claims count: the start-up (module loading)
 * and the shutdown stay out.
 */
export function breakdown(profile: CpuProfile, categories: readonly Category[], inWindow: Category): Breakdown {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, { category: string; inWindow: boolean }>();
  const classify = (leaf: number) => {
    let known = memo.get(leaf);
    if (known) return known;
    let category: string | undefined;
    let windowed = false;
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const { functionName, url } = byId.get(id)!.callFrame;
      if (functionName === '(idle)') category ??= 'idle';
      if (functionName === '(garbage collector)') category ??= 'gc';
      category ??= categories.find((c) => c.matches(functionName, url))?.name;
      windowed ||= inWindow.matches(functionName, url);
    }
    known = { category: category ?? 'other', inWindow: windowed };
    memo.set(leaf, known);
    return known;
  };
  const classified = profile.samples.map(classify);
  const first = classified.findIndex((c) => c.inWindow);
  let last = classified.length - 1;
  while (last >= 0 && !classified[last]!.inWindow) last--;
  const out: Breakdown = new Map();
  for (let i = Math.max(first, 0); i <= last; i++) {
    const { category } = classified[i]!;
    out.set(category, (out.get(category) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  return out;
}
