import type { z } from 'zod';

/** Checks a factory's options; a bad one throws naming the factory and the option (`localFileKeyStore: keysDir: …`). */
export function parseFactoryOptions<T extends z.ZodType>(factory: string, schema: T, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(options)'}: ${i.message}`);
  throw new TypeError(`invalid ${factory} options:\n  ${lines.join('\n  ')}`);
}
