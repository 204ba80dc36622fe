import { z } from 'zod';
import { invalidArgument } from '../../src/domain/errors.js';
import { LIST_DEFAULT_COUNT } from '../../src/application/list-wallets.use-case.js';

/** A query parameter that must be a plain non-negative decimal integer, given at most once. */
const queryInteger = (name: string, fallback: number) =>
  z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return fallback;
      if (typeof value !== 'string') {
        ctx.addIssue({ code: 'custom', message: `${name}: must be given once` });
        return z.NEVER;
      }
      if (!/^\d{1,15}$/.test(value)) {
        ctx.addIssue({ code: 'custom', message: `${name}: ${JSON.stringify(value)} is not a non-negative integer` });
        return z.NEVER;
      }
      return Number(value);
    });

export const listQuerySchema = z.object({
  offset: queryInteger('offset', 0),
  count: queryInteger('count', LIST_DEFAULT_COUNT),
});

/** Bodies of create and rename: an object; the name itself is checked by the domain. */
export const nameBodySchema = z.object({ name: z.unknown().optional() }, { error: 'body: must be a JSON object' });

/** zod's first issue as a DomainError naming the field. */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const message = issue.message.includes(':') ? issue.message : `${issue.path.join('.') || 'body'}: ${issue.message}`;
  throw invalidArgument(message);
}
