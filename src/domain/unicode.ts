/**
 * JSON can carry a lone UTF-16 surrogate (`"\ud800"`), which is not Unicode text: UTF-8 encoders
 * replace it (SQLite, TextEncoder) or refuse it (ethers), so it never survives as sent.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** Unicode code points in `text` (a surrogate pair counts once). */
export function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** C0 controls, DEL and C1 controls (category Cc): NUL cannot be stored in PostgreSQL text at all. */
const CONTROL = /\p{Cc}/u;
const CONTROLS = /\p{Cc}/gu;

/** The first control character in `text` as `U+XXXX`, or null when there is none. */
export function controlCharacterIn(text: string): string | null {
  const found = CONTROL.exec(text);
  return found ? `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : null;
}

/** `text` with each control character written as `\u{XXXX}`: for text that is recorded, not refused. */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u{${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}}`);
}
