/**
 * Requests counted per key in fixed windows, in a store every process of a deployment shares (the
 * PostgreSQL database, Redis): N instances enforce one per-API-key limit, not N.
 */
export interface RequestRateStore {
  /** A counter that allows `points` requests per key in each window of `windowSeconds`. */
  counter(limit: { readonly points: number; readonly windowSeconds: number }): RequestRateCounter;
}

/** The store's answer for one request: where the key stands in its current window. */
export interface RequestCount {
  /**
   * Requests of the key in its window, this one included; above the counter's `points` the request is
   * refused (a key already refused reports at least `points + 1`).
   */
  readonly counted: number;
  /** Milliseconds until the key's window ends (at least 1). */
  readonly windowEndsInMs: number;
}

export interface RequestRateCounter {
  /**
   * Counts one request for `key` and answers the key's count in its window, which the caller remembers
   * for when the store fails. Rejects when the store does not answer: the caller decides what then.
   */
  consume(key: string): Promise<RequestCount>;
}
