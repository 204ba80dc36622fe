/**
 * The query parameters the routes read, as Express's extended parser (qs) gave them, without loading
 * it: a parameter given once is its decoded string; given twice, or with brackets (`offset[]=1`,
 * `count[a]=1`), it is not a string, which the schemas refuse as "must be given once".
 */
export function queryParameters(query: string, names: readonly string[]): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  if (query === '') return found;
  // qs reads the first 1 000 parameters only.
  for (const pair of query.split('&', 1000)) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
    const { root, nested } = keyRoot(key);
    if (!names.includes(root)) continue;
    found[root] = nested || root in found ? NOT_ONCE : value;
  }
  return found;
}

/** Neither a string nor undefined: what qs makes of a repeated or bracketed parameter. */
const NOT_ONCE: readonly string[] = Object.freeze([]);

/** As qs: `+` is a space, and text that does not percent-decode is kept as it is. */
function decode(text: string): string {
  const plain = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plain);
  } catch {
    return plain;
  }
}

/** The name a key sets (`a` of `a[b]`, and of `[a]`, as qs reads it) and whether it nests below it. */
function keyRoot(key: string): { root: string; nested: boolean } {
  const brackets = /\[[^[\]]*\]/g;
  const first = brackets.exec(key);
  if (first === null) return { root: key, nested: false };
  if (first.index > 0) return { root: key.slice(0, first.index), nested: true };
  return { root: first[0].slice(1, -1), nested: brackets.exec(key) !== null };
}
