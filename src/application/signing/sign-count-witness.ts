import type { SignCountDemand, SignCountWitnessed } from '../../domain/sign-limits.js';

/**
 * How far instances' clocks may differ: another instance prunes a window by its own clock, so the signs
 * this instance counted that close to leaving the window are not held against the database.
 */
export const WITNESS_CLOCK_SKEW_MS = 30_000;
/** A window is remembered in this many slices: memory per key stays fixed, whatever the rate of signs. */
const SLICES = 32;
/** Keys remembered at most (the least recently counted are forgotten first: they are then not witnessed). */
const MAX_KEYS = 10_000;

interface Slice {
  readonly start: number;
  signs: number;
  amount: bigint;
}

interface Ledger {
  readonly windowMs: number;
  readonly width: number;
  slices: Slice[];
}

/**
 * What this instance itself counted under each limit's key, so that the database's rows can be held to
 * it: a database writer who deletes or rewrites the rows of `sign_counts` or `sign_value_counts` to reset
 * a limit leaves fewer there than the instance that counted them knows of, and the counter then refuses
 * (SignCountDemand.witnessed). Memory only: what it guards is the signs counted by a running instance
 * since its start; the signs of other instances are theirs to guard (docs/security.md says what that
 * leaves). Counted in slices of a window: a slice is held against the database only once all of it is
 * inside the window by more than the clock skew, so it never claims a row that was legitimately pruned.
 */
export class SignCountWitness {
  private readonly ledgers = new Map<string, Ledger>();

  constructor(
    private readonly skewMs = WITNESS_CLOCK_SKEW_MS,
    private readonly maxKeys = MAX_KEYS,
  ) {}

  /** `demands`, each with what this instance counted under its key still well inside its window. */
  witness(demands: readonly SignCountDemand[], now: Date): readonly SignCountDemand[] {
    if (this.ledgers.size === 0) return demands;
    const at = now.getTime();
    return demands.map((d) => {
      const witnessed = this.witnessed(d, at);
      return witnessed === undefined ? d : { ...d, witnessed };
    });
  }

  /** Remembers one sign counted under every demand at `now` (after the counter allowed it). */
  counted(demands: readonly SignCountDemand[], now: Date): void {
    const at = now.getTime();
    for (const d of demands) {
      let ledger = this.ledgers.get(d.key);
      if (ledger !== undefined) this.ledgers.delete(d.key);
      if (ledger === undefined || ledger.windowMs !== d.windowMs) ledger = { windowMs: d.windowMs, width: Math.max(1, Math.ceil(d.windowMs / SLICES)), slices: [] };
      this.ledgers.set(d.key, ledger);
      // Slices wholly out of the window are done with.
      ledger.slices = ledger.slices.filter((s) => s.start + ledger!.width > at - d.windowMs);
      const start = Math.floor(at / ledger.width) * ledger.width;
      const last = ledger.slices[ledger.slices.length - 1];
      const slice = last !== undefined && last.start === start ? last : (ledger.slices.push({ start, signs: 0, amount: 0n }), ledger.slices[ledger.slices.length - 1]!);
      slice.signs += 1;
      slice.amount += d.value?.amount ?? 0n;
    }
    while (this.ledgers.size > this.maxKeys) this.ledgers.delete(this.ledgers.keys().next().value!);
  }

  private witnessed(d: SignCountDemand, at: number): SignCountWitnessed | undefined {
    const ledger = this.ledgers.get(d.key);
    if (ledger === undefined || ledger.windowMs !== d.windowMs) return undefined;
    const after = at - d.windowMs + this.skewMs;
    let signs = 0;
    let amount = 0n;
    // Every sign of a slice starting after `after` was counted after it.
    for (const s of ledger.slices) if (s.start > after) (signs += s.signs), (amount += s.amount);
    return signs === 0 ? undefined : { after: new Date(after), signs, amount };
  }
}
