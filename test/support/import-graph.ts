import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The import graph of the repository's TypeScript, read from the source text. TypeScript 7's package
 * ships no JavaScript API (no `ts.preProcessFile`), so the specifiers are found by regular expressions
 * narrow enough not to span code: an import or export clause may hold only names, `*`, braces, commas
 * and whitespace before its `from`. Comments that open a line are blanked first, so a JSDoc example
 * is not taken for an import; a specifier in a trailing comment would be a false alarm, never a miss.
 */

/** One specifier a file names: a static or dynamic import/export, or a CommonJS require of a literal. */
export interface ImportRef {
  specifier: string;
  /** `require` covers require('x'), createRequire(...)('x') and require.resolve('x'): packages loaded at run time. */
  kind: 'static' | 'dynamic' | 'require';
}

const STATIC = /\b(?:import|export)\s+(?:type\s+)?[\w$*{},\s]*?\bfrom\s*['"]([^'"]+)['"]/g;
const SIDE_EFFECT = /\bimport\s*['"]([^'"]+)['"]/g;
const DYNAMIC = /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
const REQUIRE = /(?:\brequire|\.resolve|createRequire\([^()]*\))\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
const LINE_COMMENTS = /^[ \t]*\/\*[\s\S]*?\*\/|^[ \t]*\/\/[^\n]*/gm;

/** The specifiers of one source text, in order of kind. */
export function importsOf(source: string): ImportRef[] {
  const code = source.replace(LINE_COMMENTS, (c) => c.replace(/[^\n]/g, ' '));
  const found = (re: RegExp, kind: ImportRef['kind']) => [...code.matchAll(re)].map((m) => ({ specifier: m[1]!, kind }));
  return [...found(STATIC, 'static'), ...found(SIDE_EFFECT, 'static'), ...found(DYNAMIC, 'dynamic'), ...found(REQUIRE, 'require')];
}

/** The .ts file a relative specifier names (`./x.js` is `./x.ts`, a folder its index.ts), or null. */
export function resolveRelative(fromFile: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((c) => c.endsWith('.ts') && existsSync(c)) ?? null;
}

/** The package a bare specifier names (`@scope/name/x` → `@scope/name`, `node:fs/promises` → `node:fs`). */
export function packageOf(specifier: string): string {
  if (specifier.startsWith('node:')) return specifier.split('/')[0]!;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

export interface SourceFile {
  /** Absolute path. */
  file: string;
  /** Files it imports (relative specifiers, resolved; require of a relative literal is not an edge). */
  local: string[];
  /** Relative specifiers that resolve to no file: reported, so a typo cannot hide an edge. */
  unresolved: string[];
  /** Bare specifiers (packages, node: built-ins), with how each is loaded. */
  packages: ImportRef[];
}

/** Every .ts file under `dirs` (tests and declaration files left out), with what each imports. */
export function importGraph(root: string, dirs: readonly string[]): Map<string, SourceFile> {
  const graph = new Map<string, SourceFile>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts')) graph.set(full, read(full));
    }
  };
  const read = (file: string): SourceFile => {
    const node: SourceFile = { file, local: [], unresolved: [], packages: [] };
    for (const ref of importsOf(readFileSync(file, 'utf8'))) {
      if (!ref.specifier.startsWith('.')) node.packages.push(ref);
      else if (ref.kind === 'require') continue;
      else {
        const target = resolveRelative(file, ref.specifier);
        if (target === null) node.unresolved.push(ref.specifier);
        else if (!node.local.includes(target)) node.local.push(target);
      }
    }
    return node;
  };
  for (const dir of dirs) walk(path.join(root, dir));
  return graph;
}

/**
 * The import circles of a graph: its strongly connected components of more than one file (or a file
 * importing itself), each given as one concrete loop through the component, so a failure names the files
 * and the order in which they import each other. Tarjan's algorithm, iterative.
 */
export function importCircles(graph: Map<string, { local: string[] }>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const edges = (f: string) => (graph.get(f)?.local ?? []).filter((t) => graph.has(t));

  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; i: number }> = [{ node: start, i: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const out = edges(frame.node);
      if (frame.i < out.length) {
        const to = out[frame.i++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, i: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edges(frame.node).includes(frame.node)) components.push(component);
      }
    }
  }
  return components.map((component) => loopThrough(component, edges));
}

/** A shortest path from the component's first file back to itself, staying inside the component. */
function loopThrough(component: string[], edges: (f: string) => string[]): string[] {
  const inside = new Set(component);
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const to of edges(at)) {
      if (!inside.has(to)) continue;
      if (to === start) {
        const loop = [at];
        while (loop[0] !== start) loop.unshift(cameFrom.get(loop[0]!)!);
        return [...loop, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, at);
        queue.push(to);
      }
    }
  }
  return [...component, component[0]!];
}
