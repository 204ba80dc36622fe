/** A JSON-RPC answer as a node gives it: its result, or its error object, passed on as they are. */
export type RpcAnswer = { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } };

/**
 * The configured chains' RPCs, as the vault's JSON-RPC endpoint uses them: to fill a transaction (nonce,
 * gas, fees), to send what the vault signed, and to pass on every method it does not answer itself.
 */
export interface ChainRpc {
  /** The chains that have an RPC configured, by name. */
  chainsWithRpc(): readonly string[];
  /**
   * One call to the chain's first RPC (its chain id checked first). Raises CHAIN_UNAVAILABLE when the
   * RPC cannot be reached or does not answer in time; the node's own error comes back as `{ error }`.
   */
  relay(chain: string, method: string, params: readonly unknown[]): Promise<RpcAnswer>;
}
