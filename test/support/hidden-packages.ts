import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Node options under which the given packages cannot be imported, as in an application that did not install them. */
export interface HiddenPackages {
  /** `--import <hook>`: pass as NODE_OPTIONS, or as a node argument. */
  readonly nodeOptions: string;
  remove(): Promise<void>;
}

/**
 * A module resolution hook that answers ERR_MODULE_NOT_FOUND for `packages`, exactly what Node says
 * when one is not in node_modules; everything else resolves as usual.
 */
export async function hidePackages(packages: readonly string[]): Promise<HiddenPackages> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-hidden-'));
  const hooks = path.join(dir, 'hooks.mjs');
  await writeFile(
    hooks,
    `const missing = new Set(${JSON.stringify(packages)});
export async function resolve(specifier, context, next) {
  if (missing.has(specifier)) throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: 'ERR_MODULE_NOT_FOUND' });
  return next(specifier, context);
}`,
  );
  const register = path.join(dir, 'register.mjs');
  await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
  return { nodeOptions: `--import ${register}`, remove: () => rm(dir, { recursive: true, force: true }) };
}
