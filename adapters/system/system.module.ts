import { ContainerModule } from 'inversify';
import type { Clock } from '../../src/ports/clock.port.js';
import type { IdGenerator } from '../../src/ports/id-generator.port.js';
import { PORT_TOKENS } from '../../src/ports/port-tokens.js';
import { SystemClock } from './system.clock.js';
import { UuidV7IdGenerator } from './uuid-v7.id-generator.js';

/** The clock (the caller's, or the system's) and the ids of new records. */
export function systemModule(clock: Clock | undefined): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<Clock>(PORT_TOKENS.CLOCK).toConstantValue(clock ?? new SystemClock());
    bind<IdGenerator>(PORT_TOKENS.ID_GENERATOR).toConstantValue(new UuidV7IdGenerator());
  });
}
