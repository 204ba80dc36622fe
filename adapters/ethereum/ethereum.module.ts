import { ContainerModule } from 'inversify';
import { PORT_TOKENS } from '../../src/ports/port-tokens.js';
import type { StandardPayloads } from '../../src/ports/standard-payloads.port.js';
import { EthersStandardPayloads } from './ethers.standard-payloads.js';

/** The encoding of standard payloads (messages, typed data, transactions) the standard-signing use cases sign. */
export function ethereumModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<StandardPayloads>(PORT_TOKENS.STANDARD_PAYLOADS).toConstantValue(new EthersStandardPayloads());
  });
}
