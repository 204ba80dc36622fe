import { ContainerModule } from 'inversify';
import { MapKeyStoreRegistry } from '../../../src/application/keys/key-store-registry.js';
import type { KeyStore, KeyStoreRegistry } from '../../../src/ports/key-store.port.js';
import { PORT_TOKENS } from '../../../src/ports/port-tokens.js';

/**
 * The opened key stores by name, new wallets going to `defaultName` (default: the first). Without any
 * store the registry stays unbound: a use case that needs it fails to resolve, the others serve.
 */
export function keyStoresModule(keyStores: readonly KeyStore[], defaultName: string | undefined): ContainerModule {
  return new ContainerModule(({ bind }) => {
    if (keyStores.length === 0) return;
    bind<KeyStoreRegistry>(PORT_TOKENS.KEY_STORE_REGISTRY).toConstantValue(new MapKeyStoreRegistry(keyStores, defaultName ?? keyStores[0]!.name));
  });
}
