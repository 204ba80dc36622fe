/** A JSON-RPC answer as a node gives it: its result, or its error object, passed on as they are. */
export type RpcAnswer = { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } };

/** A relayed answer and the bytes of the node's response body it was read from. */
export type RelayedAnswer = RpcAnswer & { readonly bytes: number };

/**
 * The configured chains' RPCs, as the vault's JSON-RPC endpoint uses them: to fill a transaction (nonce,
 * gas, fees), to send what the vault signed, and to pass on the read methods it allows.
 */
export interface ChainRpc {
  /** The chains that have an RPC configured, by name. */
  chainsWithRpc(): readonly string[];
  /** The chain id the configuration gives `chain` (what its RPC must report); the chain must have an RPC. */
  chainIdOf(chain: string): bigint;
  /**
   * One call to the chain's first RPC (its chain id checked first). Raises CHAIN_UNAVAILABLE when the
   * RPC cannot be reached or does not answer in time, and RPC_ANSWER_TOO_LARGE as soon as the response
   * body passes `maxBytes` (the rest is never read); the node's own error comes back as `{ error }`.
   */
  relay(chain: string, method: string, params: readonly unknown[], maxBytes: number): Promise<RelayedAnswer>;
}
