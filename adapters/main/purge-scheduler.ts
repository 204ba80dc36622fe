import type { PurgeExpiredWallets } from '../../src/application/purge-expired-wallets.use-case.js';
import type { SweepOrphanKeys } from '../../src/application/sweep-orphan-keys.use-case.js';
import type { Logger } from './logger.js';

/**
 * Runs the expiry purge and the orphan-key sweep at start and then every `intervalMs`, never two runs at
 * once. The timer is unref'd so it never keeps a stopping process alive.
 */
export class PurgeScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly purge: PurgeExpiredWallets,
    private readonly sweep: SweepOrphanKeys,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly metrics?: { observePurge(report: { destroyed: number; failed: number; swept: number } | 'error'): void },
  ) {}

  start(): void {
    void this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  /** One purge and sweep; resolves when done (a run already under way is joined, not duplicated). */
  runOnce(): Promise<void> {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async run(): Promise<void> {
    try {
      const report = await this.purge.execute();
      if (report.destroyed > 0 || report.failed > 0) this.logger.info({ purge: report }, 'expired wallets purged');
      if (report.failed > 0) this.logger.warn({ failed: report.failed }, 'some expired wallets could not be purged; will retry');
      const swept = await this.sweep.execute();
      if (swept > 0) this.logger.info({ swept }, 'orphaned keys destroyed');
      this.metrics?.observePurge({ ...report, swept });
    } catch (error) {
      this.metrics?.observePurge('error');
      this.logger.error({ err: describe(error) }, 'purge run failed; will retry');
    }
  }
}

const describe = (e: unknown) => (e instanceof Error ? { name: e.name, message: e.message } : { message: String(e) });
