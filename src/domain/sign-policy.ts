/**
 * A vault's optional allow-lists for Sign. An absent list allows everything of its kind; a present list
 * allows only what it names. Addresses are EIP-55, selectors 0x-prefixed lower-case 4-byte hex.
 */
export interface SignPolicy {
  readonly chains?: readonly string[];
  readonly contracts?: readonly string[];
  readonly selectors?: readonly string[];
  readonly senders?: readonly string[];
}
