/*
 * Inputs crafted against one regular expression, from its own source: the strings that make a
 * backtracking engine go super-linear are a pump repeated many times (a character or a run of characters
 * the pattern's quantified parts accept in more than one way) between a prefix that reaches the
 * quantified part (an anchored pattern's literal start) and a suffix that makes the match fail at the end
 * (so every way is tried). `/(\[[0-9]*\])+$/` gets the pump `[]` and the suffix `!`; `/^(.*)\[(\d*)\]$/`
 * the pumps `[`, `[0` and `0`; `/\/+$/` the pump `/`. The pumps are every character the pattern names (one
 * member of each class), every two that follow each other in it, and the run of each group, whole and
 * with its optional parts left out.
 */

export interface Adversary {
  readonly prefix: string;
  readonly pump: string;
  readonly suffix: string;
}

interface CharNode {
  readonly kind: 'char';
  /** Characters this atom matches (one or two members of a class), or none for an assertion. */
  readonly reps: readonly string[];
  /** A character the source writes as itself (or escaped), not a class: it may start an anchored prefix. */
  readonly literal: boolean;
  optional: boolean;
  quantified: boolean;
}

interface GroupNode {
  readonly kind: 'group';
  readonly branches: Node[][];
  /** A lookaround: it consumes nothing, so its run is not part of the strings around it. */
  readonly lookaround: boolean;
  optional: boolean;
  quantified: boolean;
}

type Node = CharNode | GroupNode;

/** Characters tried as members of a class or an escape, besides the ones its source names. */
const CANDIDATES = ['a', 'A', 'z', '0', '9', ' ', '\t', '\n', '!', 'x', '/', '[', ']', '.', '-', '_', ':', '"', '\u0001', '\u00e9', '\u200b', '\ud800', '\udc00'];

/** One or two characters the class (or escape) `source` matches, as the engine says. */
function membersOf(source: string, flags: string, extra: string): string[] {
  let re: RegExp;
  try {
    re = new RegExp(`^${source}$`, flags.replace(/[gy]/g, ''));
  } catch {
    return [];
  }
  const members: string[] = [];
  for (const c of [...extra, ...CANDIDATES]) {
    if (!members.includes(c) && re.test(c)) members.push(c);
    if (members.length === 2) break;
  }
  return members;
}

/** The pattern's source read as sequences of atoms and groups (enough of the syntax to craft inputs from). */
function parse(source: string, flags: string): Node[][] {
  let i = 0;
  const sequence = (): Node[][] => {
    const branches: Node[][] = [[]];
    while (i < source.length && source[i] !== ')') {
      const c = source[i]!;
      const branch = branches[branches.length - 1]!;
      if (c === '|') {
        branches.push([]);
        i++;
        continue;
      }
      if (c === '^' || c === '$') {
        i++;
        continue;
      }
      if ('*+?{'.includes(c) && branch.length > 0) {
        quantify(branch[branch.length - 1]!);
        continue;
      }
      if (c === '(') {
        let lookaround = false;
        i++;
        if (source[i] === '?') {
          if (source.startsWith('?:', i)) i += 2;
          else if (source.startsWith('?=', i) || source.startsWith('?!', i)) (i += 2), (lookaround = true);
          else if (source.startsWith('?<=', i) || source.startsWith('?<!', i)) (i += 3), (lookaround = true);
          else if (source.startsWith('?<', i)) i = source.indexOf('>', i) + 1;
        }
        const inner = sequence();
        i++; // the `)`
        branch.push({ kind: 'group', branches: inner, lookaround, optional: false, quantified: false });
        continue;
      }
      if (c === '[') {
        let j = i + 1;
        if (source[j] === '^') j++;
        while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
        const cls = source.slice(i, j + 1);
        const named = cls.replace(/\\./g, '').replace(/[[\]^-]/g, '');
        branch.push({ kind: 'char', reps: membersOf(cls, flags, named), literal: false, optional: false, quantified: false });
        i = j + 1;
        continue;
      }
      if (c === '\\') {
        const e = source[i + 1] ?? '';
        let end = i + 2;
        if (e === 'x') end = i + 4;
        else if (e === 'u') end = source[i + 2] === '{' ? source.indexOf('}', i) + 1 : i + 6;
        else if (e === 'p' || e === 'P' || e === 'k') end = source.indexOf(e === 'k' ? '>' : '}', i) + 1;
        else if (e === 'c') end = i + 3;
        const escape = source.slice(i, end);
        i = end;
        if ('bB'.includes(e) || /[1-9k]/.test(e)) {
          branch.push({ kind: 'char', reps: [], literal: false, optional: true, quantified: false });
          continue;
        }
        const literal = !/[dDsSwWpP]/.test(e);
        branch.push({ kind: 'char', reps: membersOf(escape, flags, literal && !/[xuc0-9nrtfv]/.test(e) ? e : ''), literal, optional: false, quantified: false });
        continue;
      }
      branch.push({ kind: 'char', reps: c === '.' ? ['a', '!'] : [c], literal: c !== '.', optional: false, quantified: false });
      i++;
    }
    return branches;
  };
  const quantify = (node: Node) => {
    const c = source[i]!;
    let min = 1;
    let max = 1;
    if (c === '*') (min = 0), (max = Infinity), i++;
    else if (c === '+') (max = Infinity), i++;
    else if (c === '?') (min = 0), i++;
    else {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
      if (m === null) {
        i++;
        return;
      }
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      i += m[0].length;
    }
    if (source[i] === '?') i++; // lazy
    node.optional ||= min === 0;
    node.quantified ||= max > 1;
  };
  return sequence();
}

/** The run of a sequence: each atom's first member, optional ones left out when `minimal`. */
function runOf(nodes: readonly Node[], minimal: boolean): string {
  return nodes
    .filter((n) => !(minimal && n.optional))
    .map((n) => (n.kind === 'char' ? (n.reps[0] ?? '') : n.lookaround ? '' : runOf(n.branches[0] ?? [], minimal)))
    .join('');
}

/** The atoms of a sequence in order, groups opened (each group's first branch, lookarounds left out). */
function flatten(nodes: readonly Node[]): CharNode[] {
  return nodes.flatMap((n) => (n.kind === 'char' ? [n] : n.lookaround ? [] : flatten(n.branches[0] ?? [])));
}

/**
 * The pumps of a parsed pattern, the likeliest first: the runs of its groups (whole and minimal), the
 * members of its quantified atoms, every member, every two neighbours, and the runs of its branches.
 */
function pumpsOf(branches: readonly Node[][]): string[] {
  const groups: string[] = [];
  const quantified: string[] = [];
  const members: string[] = [];
  const pairs: string[] = [];
  const walk = (bs: readonly Node[][]) => {
    for (const nodes of bs) {
      for (const node of nodes) {
        if (node.kind === 'char') {
          members.push(...node.reps);
          if (node.quantified) quantified.push(...node.reps);
        } else {
          if (!node.lookaround) for (const b of node.branches) groups.push(runOf(b, false), runOf(b, true));
          walk(node.branches);
        }
      }
      const atoms = flatten(nodes);
      for (let k = 0; k + 1 < atoms.length; k++) for (const a of atoms[k]!.reps) for (const b of atoms[k + 1]!.reps) pairs.push(a + b);
    }
  };
  walk(branches);
  const whole = branches.flatMap((b) => [runOf(b, false), runOf(b, true)]);
  return [...new Set([...groups, ...quantified, ...members, ...pairs, ...whole])].filter((p) => p !== '');
}

/** An anchored pattern's literal start (`^0x…` → `0x`): without it, it fails at the first character. */
function literalPrefix(source: string, branches: readonly Node[][]): string {
  if (!source.startsWith('^') || branches.length !== 1) return '';
  let prefix = '';
  for (const node of branches[0]!) {
    if (node.kind !== 'char' || !node.literal || node.optional || node.quantified || node.reps.length === 0) break;
    prefix += node.reps[0]!;
  }
  return prefix;
}

/** The crafted inputs of one pattern, at most `max` pumps, each with every suffix. */
export function adversariesOf(pattern: string, flags: string, max = 16): Adversary[] {
  const branches = parse(pattern, flags);
  const prefix = literalPrefix(pattern, branches);
  const chosen = pumpsOf(branches).slice(0, max);
  return chosen.flatMap((pump) => ['', '!', '\n'].map((suffix) => ({ prefix, pump, suffix })));
}
