/**
 * `text` without the slashes it ends with (`https://vault.example/base//` → `https://vault.example/base`),
 * read from the end once: `/\/+$/` would try every slash of a long run as the start of the match.
 */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}
