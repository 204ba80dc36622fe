import { z } from 'zod';

/**
 * The checks an environment variable's text gets, shared by the configuration (adapters/main/config.ts)
 * and the key stores' own variables (each store folder's `module.ts`), so that a value is refused in the
 * same words whichever of them reads it. Every value arrives as text.
 */

/** A whole number between `min` and `max`, as a number. */
export const wholeNumberVariable = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);

/** An http:// or https:// URL. */
export const httpUrlVariable = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** `true` or `false`, kept as text (`.default('false')` where unset means false). */
export const trueOrFalseVariable = z.enum(['true', 'false'], { error: 'must be true or false' });
