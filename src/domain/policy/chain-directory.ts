import type { ChainDirectory } from './sign-intent.js';

/** A ChainDirectory over `name → chain id` (decimal); names without an id (`local`) have none. */
export function chainDirectory(ids: Readonly<Record<string, string>>): ChainDirectory {
  const names = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  return {
    idOf: (name) => ids[name] ?? null,
    nameOf: (id) => names.get(id) ?? null,
  };
}
