import { ContainerModule } from 'inversify';
import { PORT_TOKENS } from '../../src/ports/port-tokens.js';
import type { KeystoreDecryptor } from '../../src/ports/keystore-decryptor.port.js';
import type { StandardPayloads } from '../../src/ports/standard-payloads.port.js';
import { EthersKeystoreDecryptor } from './ethers.keystore-decryptor.js';
import { EthersStandardPayloads } from './ethers.standard-payloads.js';

/** The encoding of standard payloads (messages, typed data, transactions) the standard-signing use cases sign; V3 keystores for a key import. */
export function ethereumModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<StandardPayloads>(PORT_TOKENS.STANDARD_PAYLOADS).toConstantValue(new EthersStandardPayloads());
    bind<KeystoreDecryptor>(PORT_TOKENS.KEYSTORE_DECRYPTOR).toConstantValue(new EthersKeystoreDecryptor());
  });
}
