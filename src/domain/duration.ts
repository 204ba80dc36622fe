import { invalidArgument } from './errors.js';

/** A whole number and a unit, as the CLI and the governed state write durations (`0s`, `90m`, `1h`, `2d`). */
const DURATION = /^(0|[1-9][0-9]{0,8})(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export const DAY_MS = UNIT_MS.d;

export const isDuration = (text: string): boolean => DURATION.test(text.trim());

/** `30s`, `90m`, `1h`, `2d` in milliseconds, named `field` in a refusal; `max` bounds it. */
export function durationMs(text: string, field: string, max: number, maxText: string): number {
  const match = DURATION.exec(text.trim());
  if (match === null) throw invalidArgument(`${field}: ${JSON.stringify(text)} is not a whole number and a unit (s, m, h, d), such as 1h or 0s`);
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms > max) throw invalidArgument(`${field}: ${text} is longer than ${maxText}`);
  return ms;
}

