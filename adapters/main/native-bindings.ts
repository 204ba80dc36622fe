import { createRequire } from 'node:module';
import { keccakIsNative } from '../../src/domain/keccak.js';
import { ConfigError } from './config.js';

const require = createRequire(import.meta.url);

/**
 * Packages that load a native binding and quietly fall back to pure JavaScript when it does not load
 * (no prebuilt binary for the platform, install scripts not run). The vault signs with secp256k1 and
 * hashes every digest with keccak on the sign path.
 */
export const NATIVE_PACKAGES = ['secp256k1', 'keccak'] as const;

/** Whether `pkg` resolved to its native binding rather than its JavaScript fallback. */
export type NativeBindingCheck = (pkg: (typeof NATIVE_PACKAGES)[number]) => boolean;

/**
 * Each package's index tries `./bindings` and falls back otherwise: native exactly when it exports that.
 * keccak256 (src/domain/keccak.ts) loads keccak's addon itself, so that must have loaded too.
 */
export const loadsNatively: NativeBindingCheck = (pkg) => {
  if (pkg === 'keccak' && !keccakIsNative) return false;
  try {
    return require(pkg) === require(`${pkg}/bindings`);
  } catch {
    return false;
  }
};

/**
 * Refuses to serve on a fallback. secp256k1's fallback is elliptic, whose arithmetic (bn.js) is not
 * written to run in constant time, so signing with it can leak private keys through timing; keccak's is
 * several times slower on every sign. Neither shows otherwise: both packages fall back silently.
 */
export function requireNativeBindings(check: NativeBindingCheck = loadsNatively): void {
  const fallen = NATIVE_PACKAGES.filter((pkg) => !check(pkg));
  if (fallen.length === 0) return;
  throw new ConfigError(
    `the native binding of ${fallen.join(' and ')} did not load, and the pure-JavaScript fallback is not acceptable: ` +
      `${fallen.map((pkg) => WHY[pkg]).join('; ')}. Refusing to start. ` +
      "Install with the packages' install scripts allowed (package.json's allowScripts lists them), " +
      `or run \`npm rebuild ${fallen.join(' ')}\` (a C/C++ toolchain is needed where no prebuilt binary fits this platform: ` +
      `${process.platform}-${process.arch}, Node ${process.versions.node}).`,
  );
}

const WHY: Record<(typeof NATIVE_PACKAGES)[number], string> = {
  secp256k1: 'secp256k1 would sign with elliptic, which is not constant-time, so timing can leak private keys',
  keccak: 'keccak would hash in JavaScript, several times slower on every sign',
};
