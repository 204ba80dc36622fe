/**
 * Requests counted per key in fixed windows, in a store every process of a deployment shares (the
 * PostgreSQL database, Redis): N instances enforce one per-API-key limit, not N.
 */
export interface RequestRateStore {
  /** A counter that allows `points` requests per key in each window of `windowSeconds`. */
  counter(limit: { readonly points: number; readonly windowSeconds: number }): RequestRateCounter;
}

export interface RequestRateCounter {
  /**
   * Counts one request for `key`. Resolves 0 when it is within the limit, else the milliseconds until the
   * key's window ends (at least 1). Rejects when the store does not answer: the caller decides what then.
   */
  consume(key: string): Promise<number>;
}
