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

/**
 * The name a key sets and whether it nests below it, as qs splits keys: the text before the first `[`
 * (`offset` of `offset[]`, `offset[a`, `offset[[b]`), or for a key starting with `[` the content of its
 * first balanced bracket group (`offset` of `[offset]`).
 */
function keyRoot(key: string): { root: string; nested: boolean } {
  const first = key.indexOf('[');
  if (first === -1) return { root: key, nested: false };
  if (first > 0) return { root: key.slice(0, first), nested: true };
  let level = 0;
  for (let i = 0; i < key.length; i++) {
    if (key[i] === '[') level++;
    else if (key[i] === ']' && --level === 0) return { root: key.slice(1, i), nested: key.indexOf('[', i + 1) !== -1 };
  }
  // An unterminated group is one literal segment, which qs stores under the key itself.
  return { root: key, nested: false };
}
