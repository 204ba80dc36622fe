import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keyStoresHelp } from '../../adapters/main/config.js';
import { headingsOf, withoutFencedCode } from '../support/markdown.js';

/**
 * Issue 53, "docs that hold": no doc, help text or message points to a file the project does not
 * ship, or to a section a file does not have. Links and anchors are resolved as GitHub does.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function filesUnder(folder: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(repoRoot, folder), { withFileTypes: true })) {
    const relative = path.posix.join(folder, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(relative, keep));
    else if (keep(entry.name)) out.push(relative);
  }
  return out;
}

/** The shipped markdown: README.md, docs/ and the examples' READMEs (CHANGELOG.md is history: it names what was). */
const markdownFiles = ['README.md', ...filesUnder('docs', (name) => name.endsWith('.md')), ...filesUnder('examples', (name) => name === 'README.md')];
/** The code whose help texts, messages and OpenAPI descriptions an operator reads. */
const codeFiles = ['src', 'adapters', 'lib', 'bin', 'client'].flatMap((folder) => filesUnder(folder, (name) => /\.(ts|mts|js|mjs)$/.test(name)));

const anchorsCache = new Map<string, Set<string>>();
const headingTextsCache = new Map<string, string[]>();
function anchorsOf(file: string): Set<string> {
  if (!anchorsCache.has(file)) anchorsCache.set(file, new Set(headingsOf(readFileSync(path.join(repoRoot, file), 'utf8')).map((h) => h.anchor)));
  return anchorsCache.get(file)!;
}
function headingTextsOf(file: string): string[] {
  if (!headingTextsCache.has(file)) headingTextsCache.set(file, headingsOf(readFileSync(path.join(repoRoot, file), 'utf8')).map((h) => h.text.toLowerCase()));
  return headingTextsCache.get(file)!;
}

/** Why `target` (a repository path, optionally `#anchor`) points nowhere, or undefined when it resolves. */
function problemOf(target: string): string | undefined {
  const [file, anchor] = target.split('#') as [string, string | undefined];
  const absolute = path.join(repoRoot, file);
  if (!absolute.startsWith(repoRoot) || !existsSync(absolute)) return `${file} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(absolute).isDirectory() || !file.endsWith('.md')) return `${file} has no anchors (#${anchor})`;
  return anchorsOf(file).has(decodeURIComponent(anchor).toLowerCase()) ? undefined : `${file} has no heading with the anchor #${anchor}`;
}

/** Where a bare file name such as `security.md` is: beside the text that names it, in docs/ or at the root. */
function locate(name: string, from: string): string | undefined {
  return [path.posix.join(path.posix.dirname(from), name), path.posix.join('docs', name), name].find((candidate) => existsSync(path.join(repoRoot, candidate)));
}

interface Reference {
  readonly where: string;
  readonly target: string;
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** `docs/…` paths named in a text (not in a URL or a route such as `/docs/assets`), each with its anchor. */
function docsPaths(text: string, file: string): Reference[] {
  return [...text.matchAll(/(?<![\w/.-])docs\/[\w./-]*[\w/](?:#[\w-]*)?/g)].map((m) => ({ where: `${file}:${lineOf(text, m.index)}`, target: m[0] }));
}

/** `name.md "Heading"` and `name.md, "Heading"`: a section named by its heading, which must be one of that file's (or the start of one). */
function quotedSections(text: string, file: string): { where: string; name: string; heading: string }[] {
  return [...text.matchAll(/(?<![\w/.-])((?:docs\/)?[\w-]+\.md),? "([^"\n]+)"/g)].map((m) => ({ where: `${file}:${lineOf(text, m.index)}`, name: m[1]!, heading: m[2]! }));
}

/** Bare `name.md` mentions, which must name a file the project ships. */
function mdNames(text: string, file: string): { where: string; name: string }[] {
  return [...text.matchAll(/(?<![\w/.-])([\w-]+\.md)\b/g)].map((m) => ({ where: `${file}:${lineOf(text, m.index)}`, name: m[1]! }));
}

/** The code without its comment lines: a comment is for the project's developers, a string is what a user reads. */
function withoutCommentLines(code: string): string {
  return code
    .split('\n')
    .map((line) => (/^\s*(\/\/|\/\*|\*)/.test(line) ? '' : line))
    .join('\n');
}

function markdownLinks(file: string): Reference[] {
  const text = withoutFencedCode(readFileSync(path.join(repoRoot, file), 'utf8'));
  const references: Reference[] = [];
  const add = (raw: string, index: number) => {
    const target = raw.trim().replace(/^<|>$/g, '');
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return; // https:, mailto:: not the project's files
    const resolved = target.startsWith('#') ? `${file}${target}` : path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
    references.push({ where: `${file}:${lineOf(text, index)}`, target: resolved });
  };
  for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) add(m[1]!, m.index);
  for (const m of text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)) add(m[1]!, m.index);
  return references;
}

describe('links and anchors of README.md and docs/', () => {
  it('finds the files to check', () => {
    expect(markdownFiles).toContain('docs/api.md');
    expect(markdownLinks('README.md').length).toBeGreaterThan(20);
  });

  it('resolves every relative link and its anchor', () => {
    const broken = markdownFiles.flatMap((file) => markdownLinks(file).flatMap(({ where, target }) => (problemOf(target) ? [`${where}: ${target}: ${problemOf(target)}`] : [])));
    expect(broken).toEqual([]);
  });

  it('resolves every docs/ path named in the prose', () => {
    const broken = markdownFiles.flatMap((file) => {
      const text = withoutFencedCode(readFileSync(path.join(repoRoot, file), 'utf8'));
      return docsPaths(text, file).flatMap(({ where, target }) => (problemOf(target) ? [`${where}: ${target}: ${problemOf(target)}`] : []));
    });
    expect(broken).toEqual([]);
  });

  it('names only files the project ships, and only sections they have', () => {
    const broken = markdownFiles.flatMap((file) => {
      const text = withoutFencedCode(readFileSync(path.join(repoRoot, file), 'utf8'));
      return [...mentionProblems(text, file)];
    });
    expect(broken).toEqual([]);
  });
});

function* mentionProblems(text: string, file: string): Generator<string> {
  for (const { where, name } of mdNames(text, file)) if (locate(name, file) === undefined) yield `${where}: ${name} is not in the project`;
  for (const { where, name, heading } of quotedSections(text, file)) {
    const found = locate(name.replace(/^docs\//, ''), file);
    if (found === undefined) continue; // reported above
    const wanted = heading.toLowerCase().replace(/`/g, '');
    if (!headingTextsOf(found).some((h) => h.startsWith(wanted))) yield `${where}: ${found} has no section "${heading}"`;
  }
}

describe('docs/ paths in help texts, messages and OpenAPI descriptions', () => {
  it('finds the code to check', () => {
    expect(codeFiles).toContain('adapters/cli/policies.commands.ts');
  });

  it('resolves every docs/ path, and its anchor, named in src/, adapters/, lib/, bin/ and client/', () => {
    const broken = codeFiles.flatMap((file) =>
      docsPaths(readFileSync(path.join(repoRoot, file), 'utf8'), file).flatMap(({ where, target }) => {
        // `docs/keystores.md#${store.docsAnchor}`: built from each store's anchor, checked below.
        const checked = target.endsWith('#') ? target.slice(0, -1) : target;
        return problemOf(checked) ? [`${where}: ${target}: ${problemOf(checked)}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it('resolves the sections named by their heading, and names no file the project does not ship, outside comments', () => {
    const broken = codeFiles.flatMap((file) => [...mentionProblems(withoutCommentLines(readFileSync(path.join(repoRoot, file), 'utf8')), file)]);
    expect(broken).toEqual([]);
  });

  it("resolves every key store's section that `--help` names", () => {
    const targets = [...keyStoresHelp().matchAll(/\((docs\/[^)]+)\)/g)].map((m) => m[1]!);
    expect(targets.length).toBeGreaterThan(5);
    expect(targets.flatMap((target) => (problemOf(target) ? [`${target}: ${problemOf(target)}`] : []))).toEqual([]);
  });

  it('resolves every docs/ path in openapi.json', () => {
    const text = readFileSync(path.join(repoRoot, 'openapi.json'), 'utf8');
    expect(docsPaths(text, 'openapi.json').flatMap(({ where, target }) => (problemOf(target) ? [`${where}: ${target}: ${problemOf(target)}`] : []))).toEqual([]);
    expect([...mentionProblems(text, 'openapi.json')]).toEqual([]);
  });
});

describe('the resolver', () => {
  it('fails on a file or an anchor that does not exist, and takes GitHub slugs', () => {
    expect(problemOf('docs/approvals.md')).toMatch(/does not exist/);
    expect(problemOf('docs/api.md#no-such-section')).toMatch(/no heading/);
    expect(problemOf('docs/api.md#idempotent-create-idempotency-key')).toBeUndefined();
    expect(problemOf('README.md#two-commands')).toBeUndefined();
    expect([...mentionProblems('see decisions.md, "Signed decisions"', 'x')]).toHaveLength(1);
    expect([...mentionProblems('see api.md, "No such heading"', 'docs/x.md')]).toHaveLength(1);
  });
});
