import { ContainerModule } from 'inversify';
import type { Clock } from '../../src/ports/clock.port.js';
import { PORT_TOKENS } from '../../src/ports/port-tokens.js';
import type { ReplayGuard } from '../../src/ports/replay-guard.port.js';
import { InMemoryReplayGuard } from './in-memory.replay-guard.js';
import { LayeredReplayGuard } from './layered.replay-guard.js';

/**
 * The replay guard of `X-Vault-Auth-Signature` nonces, on the vault's clock: the persistence's shared one
 * when it has one (every process on the database refuses a replay) behind this process's memory (which
 * refuses a replay to this process even if the database forgot the nonce), else the memory alone.
 */
export function replayModule(shared: ((now: () => number) => ReplayGuard) | undefined): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<ReplayGuard>(PORT_TOKENS.REPLAY_GUARD).toDynamicValue((ctx) => {
      const clock = ctx.get<Clock>(PORT_TOKENS.CLOCK);
      const now = () => clock.now().getTime();
      const local = new InMemoryReplayGuard(undefined, now);
      return shared ? new LayeredReplayGuard(local, shared(now)) : local;
    });
  });
}
