import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../adapters/main/config.js';
import { loadsNatively, NATIVE_PACKAGES, requireNativeBindings } from '../../adapters/main/native-bindings.js';

describe('the native secp256k1 and keccak bindings are required', () => {
  it('are what this install loads (allowScripts lets their install run)', () => {
    expect(NATIVE_PACKAGES.map((pkg) => [pkg, loadsNatively(pkg)])).toEqual([
      ['secp256k1', true],
      ['keccak', true],
    ]);
    expect(() => requireNativeBindings()).not.toThrow();
  });

  it('refuses to start on the secp256k1 fallback, saying why and what to do', () => {
    const start = () => requireNativeBindings((pkg) => pkg !== 'secp256k1');
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(/^the native binding of secp256k1 did not load/);
    expect(start).toThrow(/elliptic, which is not constant-time, so timing can leak private keys/);
    expect(start).toThrow(/Refusing to start\. .*allowScripts.*`npm rebuild secp256k1`/);
    expect(start).not.toThrow(/keccak would/);
  });

  it('names every package that fell back', () => {
    expect(() => requireNativeBindings(() => false)).toThrow(/native binding of secp256k1 and keccak did not load, .*keccak would hash in JavaScript.*`npm rebuild secp256k1 keccak`/);
  });
});
