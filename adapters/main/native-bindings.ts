import { nativeBindingProblem, loadsNatively, type NativeBindingCheck } from '../native-bindings.js';
import { ConfigError } from './config.js';

export { loadsNatively, NATIVE_PACKAGES, type NativeBindingCheck } from '../native-bindings.js';

/**
 * Refuses to serve on a fallback (adapters/native-bindings.ts says why), before anything opens. The
 * library's entry points that `serve` builds through (createVault, the key store factories) apply the
 * same guard; this one names what to do as an operator would read it.
 */
export function requireNativeBindings(check: NativeBindingCheck = loadsNatively): void {
  const found = nativeBindingProblem(check);
  if (found) throw new ConfigError(`${found.problem}. Refusing to start. ${found.remedy}.`);
}
