import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/*
 * The regular-expression literals of the repository's source, found by a small lexer: TypeScript 7's
 * package ships no JavaScript API to parse with (import-graph.ts says the same), and a grep cannot tell
 * `a / b / c` from `/b/`. The lexer knows strings, template literals (with `${}` nested to any depth),
 * comments and regex literals; a `/` starts a regex literal where an expression may start, which is
 * decided by the token before it (the rule every JavaScript tokenizer without a parser uses). What it
 * finds is what the engine compiles: `new RegExp(...)` built at run time is not here, and the tests
 * that need those build them through the code that does.
 */

export interface RegexLiteral {
  /** Repository-relative path, `/` separated. */
  readonly file: string;
  readonly line: number;
  readonly pattern: string;
  readonly flags: string;
}

/** Keywords after which a `/` starts a regex literal (an expression follows them), not a division. */
const EXPRESSION_KEYWORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);
const isIdentifierChar = (c: string) => /[A-Za-z0-9_$]/.test(c);

/** The regex literals of one source text, in order. */
export function regexLiteralsOf(source: string): { line: number; pattern: string; flags: string }[] {
  const found: { line: number; pattern: string; flags: string }[] = [];
  // What the last significant token was: a `/` after an operand divides, after anything else starts a regex.
  let afterOperand = false;
  // Open template literals: the brace depth of the `${` that entered each one's expression.
  const templates: number[] = [];
  let braces = 0;
  let line = 1;
  // A `#!` line (bin/) is no JavaScript.
  let i = source.startsWith('#!') ? source.indexOf('\n') : 0;
  if (i === -1) return found;
  const n = source.length;
  /** Skips a string or template chunk ending at `quote` from i (just past the opening quote); true when a template's `${` ends it. */
  const skipQuoted = (quote: string): boolean => {
    while (i < n) {
      const c = source[i]!;
      if (c === '\\') {
        if (source[i + 1] === '\n') line++;
        i += 2;
        continue;
      }
      if (c === '\n') line++;
      if (c === quote) {
        i++;
        return false;
      }
      if (quote === '`' && c === '$' && source[i + 1] === '{') {
        i += 2;
        return true;
      }
      i++;
    }
    return false;
  };
  /** Reads a template literal's text from i (just past its backtick or a `}`) to its end, or into its next `${`. */
  const templateChunk = () => {
    if (skipQuoted('`')) {
      templates.push(braces);
      braces++;
      afterOperand = false;
    } else afterOperand = true;
  };
  while (i < n) {
    const c = source[i]!;
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? n : end + 2;
      for (let k = i; k < stop; k++) if (source[k] === '\n') line++;
      i = stop;
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      skipQuoted(c);
      afterOperand = true;
      continue;
    }
    if (c === '`') {
      i++;
      templateChunk();
      continue;
    }
    if (c === '{') {
      braces++;
      i++;
      afterOperand = false;
      continue;
    }
    if (c === '}') {
      braces--;
      i++;
      if (templates.length > 0 && templates[templates.length - 1] === braces) {
        // Back in the template literal whose `${` this closes.
        templates.pop();
        templateChunk();
        continue;
      }
      // A block's end (a statement may start: a regex) far more often than an object literal divided.
      afterOperand = false;
      continue;
    }
    if (c === '/') {
      if (afterOperand) {
        i++;
        afterOperand = false;
        continue;
      }
      const at = line;
      let j = i + 1;
      let inClass = false;
      while (j < n && source[j] !== '\n') {
        const d = source[j]!;
        if (d === '\\') j += 2;
        else {
          if (d === '[') inClass = true;
          else if (d === ']') inClass = false;
          else if (d === '/' && !inClass) break;
          j++;
        }
      }
      const pattern = source.slice(i + 1, j);
      let k = j + 1;
      while (k < n && /[a-z]/.test(source[k]!)) k++;
      found.push({ line: at, pattern, flags: source.slice(j + 1, k) });
      i = k;
      afterOperand = true;
      continue;
    }
    if (isIdentifierChar(c)) {
      let j = i;
      while (j < n && isIdentifierChar(source[j]!)) j++;
      const word = source.slice(i, j);
      afterOperand = !EXPRESSION_KEYWORDS.has(word);
      i = j;
      continue;
    }
    // `)` and `]` close an operand; every other punctuator expects one next.
    afterOperand = c === ')' || c === ']';
    i++;
  }
  return found;
}

/** Every regex literal of the .ts and .js files under `dirs` of `root` (declaration files and `skip` left out). */
export function regexLiterals(root: string, dirs: readonly string[], skip: readonly string[] = []): RegexLiteral[] {
  const all: RegexLiteral[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      const rel = path.relative(root, file).split(path.sep).join('/');
      if (skip.some((s) => rel === s || rel.startsWith(`${s}/`))) continue;
      if (entry.isDirectory()) walk(file);
      else if (/\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        for (const r of regexLiteralsOf(readFileSync(file, 'utf8'))) all.push({ file: rel, ...r });
      }
    }
  };
  for (const dir of dirs) walk(path.join(root, dir));
  return all;
}
