import { ContainerModule } from 'inversify';
import type { Persistence } from '../../../src/ports/persistence.port.js';
import { PERSISTENCE_PORTS, PORT_TOKENS } from '../../../src/ports/port-tokens.js';

/**
 * One binding per persistence port of an opened database (PERSISTENCE_PORTS: each token and the field it
 * is read from), whichever dialect opened it (SQLite, PostgreSQL, the in-memory twin); `deploymentId` is
 * what its KeyQuarantine reported at start.
 */
export function persistenceModule(persistence: Persistence, deploymentId: string | null): ContainerModule {
  return new ContainerModule(({ bind }) => {
    for (const [name, field] of Object.entries(PERSISTENCE_PORTS) as [keyof typeof PERSISTENCE_PORTS, keyof Persistence][]) {
      bind(PORT_TOKENS[name]).toConstantValue(persistence[field]);
    }
    bind(PORT_TOKENS.DEPLOYMENT_ID).toConstantValue(deploymentId);
  });
}
