import type { SignCountDemand } from '../domain/sign-limits.js';

/** Whether a sign fits its limits, and when it would if not. */
export interface SignCountDecision {
  readonly allowed: boolean;
  /** Milliseconds until the count that refused it has room again (0 when allowed). */
  readonly retryAfterMs: number;
  /** The key of the demand that refused it (the one with the longest wait). */
  readonly refusedBy?: string;
  /**
   * The storage holds fewer signs (or less value) under `refusedBy` than the demand's `witnessed` says this
   * instance counted there: rows were deleted or rewritten in the database. Nothing was counted.
   */
  readonly missing?: true;
}

/**
 * Counts signs against rolling-window limits in storage every instance shares (limitDemands of src/domain/policy/policy-limits.ts gives
 * the demands: distinct keys, in key order). `take` is atomic across processes: either every demand has
 * room and one sign is counted under each key, or none is counted and the answer says which demand is
 * full longest, and for how long. A demand that carries `witnessed` is checked first against the rows held
 * under its key after `witnessed.after`: fewer than that refuses the take as `missing`. A sign counted at `now` leaves the count of a `windowMs` window at `now + windowMs`.
 */
export interface SignCounter {
  take(demands: readonly SignCountDemand[], now: Date): Promise<SignCountDecision>;
}
