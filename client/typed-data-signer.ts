/*
 * Signing a decision (decisions.md, "Signed decisions") with the approver's own key, whatever holds it:
 * an ethers Signer (`signTypedData(domain, types, value)`), a viem account or a viem wallet client
 * (`signTypedData({ domain, types, primaryType, message })`). Structural types only: the client imports
 * neither library, so it stays usable in a browser bundle with either or with none.
 */

/** EIP-712 typed data as the vault gives it to sign: `types` without `EIP712Domain`. */
export interface TypedDataToSignWith {
  readonly domain: { readonly name: string; readonly version: string };
  readonly types: Readonly<Record<string, readonly { readonly name: string; readonly type: string }[]>>;
  readonly primaryType: string;
  // An interface's fields, not an index signature: the domain's DecisionMessage and PolicyChangeMessage fit.
  readonly message: object;
}

/** An ethers v6 Signer (Wallet, JsonRpcSigner, a hardware wallet's signer): it has getAddress. */
export interface EthersTypedDataSigner {
  getAddress(): Promise<string>;
  signTypedData(domain: object, types: Record<string, { name: string; type: string }[]>, value: Record<string, unknown>): Promise<string>;
}

/** A viem local account (privateKeyToAccount, mnemonicToAccount) or a viem wallet client (with its `account`, or one it was made with). */
export interface ViemTypedDataSigner {
  readonly account?: unknown;
  signTypedData(parameters: { domain: object; types: Record<string, { name: string; type: string }[]>; primaryType: string; message: Record<string, unknown>; account?: never }): Promise<string>;
}

export type TypedDataSigner = EthersTypedDataSigner | ViemTypedDataSigner;

/**
 * Signs `typedData` with `signer`, answering the 65-byte signature as 0x hex. ethers' signTypedData takes
 * the domain, the types and the value apart; viem's takes one object with the primary type. A viem wallet
 * client is given its own `account` (a client made without one needs it per call).
 */
export async function signDecisionTypedData(signer: TypedDataSigner, typedData: TypedDataToSignWith): Promise<string> {
  if (typeof signer !== 'object' || signer === null || typeof (signer as { signTypedData?: unknown }).signTypedData !== 'function') {
    throw new TypeError('signer must be an ethers Signer, a viem account or a viem wallet client (something with signTypedData)');
  }
  // Copies: ethers and viem may annotate what they are given, and the typed data is the caller's.
  const types = Object.fromEntries(Object.entries(typedData.types).map(([name, fields]) => [name, fields.map((f) => ({ name: f.name, type: f.type }))]));
  const domain = { ...typedData.domain };
  const message = { ...typedData.message } as Record<string, unknown>;
  let signature: unknown;
  if (typeof (signer as { getAddress?: unknown }).getAddress === 'function') {
    signature = await (signer as EthersTypedDataSigner).signTypedData(domain, types, message);
  } else {
    const viem = signer as ViemTypedDataSigner;
    const account = typeof viem.account === 'object' && viem.account !== null ? { account: viem.account as never } : {};
    signature = await viem.signTypedData({ domain, types, primaryType: typedData.primaryType, message, ...account });
  }
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new TypeError('signer: signTypedData did not answer a 65-byte 0x-hex signature');
  return signature;
}
