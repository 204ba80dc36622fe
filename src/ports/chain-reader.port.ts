/** The values a signable contract exposes for signature checks. */
export interface SignableValues {
  /** bytes32, 0x-prefixed lower-case hex. */
  readonly uniq: string;
  /** EIP-55 address of the vault wallet the contract trusts. */
  readonly signer: string;
}

export interface ReadOptions {
  /**
   * Read the contract now, not a value kept from an earlier read: the release of an approved request asks
   * for it, so a signer rotated while the request waited is the one that signs.
   */
  readonly fresh?: boolean;
}

/** Reads contracts on the chains that have an RPC configured. */
export interface ChainReader {
  /** Whether an RPC is configured for this chain (otherwise uniq and signer come from the request). */
  hasRpc(chain: string): boolean;
  /**
   * `uniq()` and `signer()` of the contract. Raises CHAIN_UNAVAILABLE when the RPC fails or its chain
   * id is not the named chain's, and INVALID_ARGUMENT when the contract does not answer them.
   */
  readSignable(chain: string, contract: string, options?: ReadOptions): Promise<SignableValues>;
  /** A price feed's latest answer (PriceFeedPort), where the reader can read one. */
  readPriceFeed?(chain: string, feed: string): Promise<PriceFeedAnswer>;
}

/** A Chainlink AggregatorV3's latest answer (`latestRoundData`) and its `decimals`. */
export interface PriceFeedAnswer {
  /** The price, `decimals` fractional digits (int256: a feed may answer 0 or less, which no limit uses). */
  readonly answer: bigint;
  readonly decimals: number;
  /** Seconds since the epoch of the answer's round. */
  readonly updatedAt: bigint;
}

/** Reads a price feed on a chain with an RPC (ChainReader's adapters implement it too). */
export interface PriceFeedPort {
  /** CHAIN_UNAVAILABLE when the RPC fails; INVALID_ARGUMENT when the address does not answer as an aggregator. */
  readPriceFeed(chain: string, feed: string): Promise<PriceFeedAnswer>;
}
