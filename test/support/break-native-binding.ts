import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * What a missing prebuilt binary does: secp256k1's index requires './bindings', which throws, and it
 * silently exports its elliptic fallback instead. A preload makes exactly that require throw.
 */
const BREAK_SECP256K1_BINDING = `
const Module = require('node:module');
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const fromSecp = parent && /[\\\\/]secp256k1[\\\\/][^\\\\/]+$/.test(parent.filename);
  if ((request === './bindings' && fromSecp) || request === 'secp256k1/bindings') throw new Error('simulated: no native binding');
  return load.apply(this, arguments);
};
`;

/**
 * keccak's addon does not load: node-gyp-build, which both keccak's bindings.js and the vault's own
 * keccak256 (adapters/system/keccak.ts) load it with from keccak's folder, throws.
 */
const BREAK_KECCAK_ADDON = `
const Module = require('node:module');
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const fromKeccak = parent && /[\\/]keccak[\\/][^\\/]+$/.test(parent.filename);
  if (request === 'node-gyp-build' && fromKeccak) throw new Error('simulated: no native binding');
  return load.apply(this, arguments);
};
`;

/** Files to `--require` in a child process so that the named package falls back to JavaScript. */
export interface BrokenBindings {
  readonly secp256k1: string;
  readonly keccak: string;
  remove(): Promise<void>;
}

export async function writeBindingBreakers(): Promise<BrokenBindings> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-native-'));
  const secp256k1 = path.join(dir, 'break-secp256k1-binding.cjs');
  const keccak = path.join(dir, 'break-keccak-addon.cjs');
  await writeFile(secp256k1, BREAK_SECP256K1_BINDING);
  await writeFile(keccak, BREAK_KECCAK_ADDON);
  return { secp256k1, keccak, remove: () => rm(dir, { recursive: true, force: true }) };
}
