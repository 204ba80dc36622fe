import { createRequire } from 'node:module';
import { keccakIsNative } from './system/keccak.js';

const require = createRequire(import.meta.url);

/**
 * Packages that load a native binding and quietly fall back to pure JavaScript when it does not load
 * (no prebuilt binary for the platform, install scripts not run). The vault signs with secp256k1 and
 * hashes every digest with keccak on the sign path.
 */
export const NATIVE_PACKAGES = ['secp256k1', 'keccak'] as const;
export type NativePackage = (typeof NATIVE_PACKAGES)[number];

/** Whether `pkg` resolved to its native binding rather than its JavaScript fallback. */
export type NativeBindingCheck = (pkg: NativePackage) => boolean;

/**
 * Each package's index tries `./bindings` and falls back otherwise: native exactly when it exports that.
 * The keccak256 the domain is given (adapters/system/keccak.ts) loads keccak's addon itself, so that must have loaded too.
 */
export const loadsNatively: NativeBindingCheck = (pkg) => {
  if (pkg === 'keccak' && !keccakIsNative) return false;
  try {
    return require(pkg) === require(`${pkg}/bindings`);
  } catch {
    return false;
  }
};

const WHY: Record<NativePackage, string> = {
  secp256k1: 'secp256k1 would sign with elliptic, which is not constant-time, so timing can leak private keys',
  keccak: 'keccak would hash in JavaScript, several times slower on every sign',
};

/**
 * What is wrong when a package fell back, and how to fix it; null when both loaded natively. Neither
 * fallback shows otherwise: both packages fall back silently. secp256k1's is elliptic, whose arithmetic
 * (bn.js) is not written to run in constant time, so signing with it can leak private keys through
 * timing; keccak's is several times slower on every sign.
 */
export function nativeBindingProblem(check: NativeBindingCheck = loadsNatively): { problem: string; remedy: string } | null {
  const fallen = NATIVE_PACKAGES.filter((pkg) => !check(pkg));
  if (fallen.length === 0) return null;
  return {
    problem:
      `the native binding of ${fallen.join(' and ')} did not load, and the pure-JavaScript fallback is not acceptable: ` +
      fallen.map((pkg) => WHY[pkg]).join('; '),
    remedy:
      "Install with the packages' install scripts allowed (package.json's allowScripts lists them), " +
      `or run \`npm rebuild ${fallen.join(' ')}\` (a C/C++ toolchain is needed where no prebuilt binary fits this platform: ` +
      `${process.platform}-${process.arch}, Node ${process.versions.node})`,
  };
}

/** A library entry point (createVault, a key store factory) refused to run on a JavaScript fallback. */
export class NativeBindingError extends Error {
  override readonly name = 'NativeBindingError';
}

/**
 * The guard of the library's entry points that sign or hash on the sign path: the same one `serve`
 * applies, so an application embedding the vault gets it without asking. `allowJavaScriptFallback`
 * is the caller's explicit, documented opt-out (a development machine without a toolchain).
 */
export function requireNativeBindingsFor(entry: string, allowJavaScriptFallback: boolean | undefined, check: NativeBindingCheck = loadsNatively): void {
  if (allowJavaScriptFallback === true) return;
  const found = nativeBindingProblem(check);
  if (!found) return;
  throw new NativeBindingError(
    `${entry}: ${found.problem}. ${found.remedy}; or pass allowJavaScriptFallback: true to ${entry} to accept the fallback.`,
  );
}
