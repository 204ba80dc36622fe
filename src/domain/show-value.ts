/**
 * A request value as quoted in an error message: JSON, cut to 80 characters. A refusal names what was
 * sent without echoing a megabyte of it back.
 */
export function showValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
