/**
 * What the docs tests read of a markdown file: its prose (fenced code blocks taken out, since neither a
 * link nor a heading is one there) and the anchors GitHub gives its headings.
 */

/** The text with every fenced code block (``` or ~~~) replaced by empty lines, so line numbers hold. */
export function withoutFencedCode(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker !== undefined) {
        fence = marker;
        return '';
      }
      if (fence !== undefined) {
        if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** A heading's text as GitHub renders it: code spans, emphasis, links and HTML tags reduced to their text. */
export function headingText(raw: string): string {
  return raw
    .replace(/<[^>]+>/g, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*{1,3})([^*]+)\1/g, '$2')
    .trim();
}

/**
 * GitHub's anchor for a heading (github-slugger): lower case, every character that is not a letter, a
 * digit, a space, `-` or `_` removed, spaces as `-`. A repeated slug gets `-1`, `-2`, … in order.
 */
export function slug(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

export interface Heading {
  readonly text: string;
  readonly anchor: string;
}

/** The headings (ATX `#`…`######`, outside code) of a markdown text with their anchors, and explicit `<a id>`/`<a name>` anchors. */
export function headingsOf(markdown: string): Heading[] {
  const seen = new Map<string, number>();
  const headings: Heading[] = [];
  for (const line of withoutFencedCode(markdown).split('\n')) {
    for (const [, id] of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) headings.push({ text: id!, anchor: id! });
    const match = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!match) continue;
    const text = headingText(match[1]!);
    const base = slug(text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    headings.push({ text, anchor: count === 0 ? base : `${base}-${count}` });
  }
  return headings;
}

/** The rows of the first pipe table after `marker` (a heading or any text), each row's cells trimmed, the header and its rule left out. */
export function tableAfter(markdown: string, marker: string): string[][] {
  const start = markdown.indexOf(marker);
  if (start < 0) throw new Error(`no "${marker}"`);
  const lines = markdown.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, line.endsWith('|') ? -1 : undefined).split('|').map((cell) => cell.trim()));
  }
  return rows;
}
