import {
  AbstractSigner,
  authorizationify,
  Signature,
  type Authorization,
  type AuthorizationRequest,
  accessListify,
  getBigInt,
  TypedDataEncoder,
  getAddress,
  hexlify,
  resolveAddress,
  type BigNumberish,
  type Provider,
  type TransactionRequest,
  type TypedDataDomain,
  type TypedDataField,
} from 'ethers';
import { authorizationSigner, toJsonValue, transactionBody, type HexString, type StandardSigningClient, type TypedDataRequest } from './standard-signing.js';

export type { StandardSigningClient } from './standard-signing.js';

/**
 * A vault wallet as an ethers signer (`wallet-vault/ethers`): `contract.connect(signer)`,
 * `signer.sendTransaction`, `signMessage` and `signTypedData` work unchanged, every signature made by
 * the vault under its policy (docs/standard-signing.md). With a provider, ethers fills nonce, gas and fees
 * (AbstractSigner.populateTransaction) and broadcasts what the vault signed.
 */
export class VaultSigner extends AbstractSigner {
  readonly address: HexString;

  constructor(
    private readonly client: StandardSigningClient,
    address: string,
    provider: Provider | null = null,
  ) {
    super(provider);
    this.address = getAddress(address) as HexString;
  }

  async getAddress(): Promise<string> {
    return this.address;
  }

  connect(provider: Provider | null): VaultSigner {
    return new VaultSigner(this.client, this.address, provider);
  }

  async signMessage(message: string | Uint8Array): Promise<string> {
    const payload = typeof message === 'string' ? message : { raw: hexlify(message) as HexString };
    return (await this.client.signMessage(this.address, payload)).signature;
  }

  async signTypedData(domain: TypedDataDomain, types: Record<string, TypedDataField[]>, value: Record<string, unknown>): Promise<string> {
    // ENS names in the domain or the value are resolved as ethers' own Wallet does.
    const resolved = await TypedDataEncoder.resolveNames(domain, types, value, async (name) => {
      if (this.provider === null) throw new Error(`cannot resolve ENS name ${name} without a provider`);
      const address = await this.provider.resolveName(name);
      if (address === null) throw new Error(`ENS name ${name} does not resolve`);
      return address;
    });
    const { EIP712Domain: _domainType, ...structs } = types;
    const typedData = {
      domain: toJsonValue(resolved.domain),
      types: structs,
      primaryType: TypedDataEncoder.getPrimaryType(structs),
      message: toJsonValue(resolved.value),
    } as TypedDataRequest;
    return (await this.client.signTypedData(this.address, typedData)).signature;
  }

  async signTransaction(tx: TransactionRequest): Promise<string> {
    const [to, from] = await Promise.all([
      tx.to == null ? null : resolveAddress(tx.to, this.provider),
      tx.from == null ? null : resolveAddress(tx.from, this.provider),
    ]);
    if (from !== null && getAddress(from) !== this.address) throw new Error(`transaction from ${from} is not this signer's address ${this.address}`);
    const typeNames = ['legacy', 'eip2930', 'eip1559', undefined, 'eip7702'] as const;
    const type = tx.type == null ? undefined : typeNames[tx.type];
    if (tx.type != null && type === undefined) throw new Error(`transaction type ${tx.type}: the vault signs legacy (0), eip2930 (1), eip1559 (2) and eip7702 (4) transactions`);
    // BigNumberish in any of its forms (a number, decimal or hex text, a bigint) becomes one bigint.
    const quantity = (value: BigNumberish | null | undefined) => (value == null ? undefined : getBigInt(value));
    const body = transactionBody({
      type,
      chainId: quantity(tx.chainId),
      nonce: quantity(tx.nonce),
      to,
      from,
      value: quantity(tx.value),
      data: tx.data,
      gas: quantity(tx.gasLimit),
      gasPrice: quantity(tx.gasPrice),
      maxFeePerGas: quantity(tx.maxFeePerGas),
      maxPriorityFeePerGas: quantity(tx.maxPriorityFeePerGas),
      accessList: tx.accessList == null ? undefined : accessListify(tx.accessList),
      authorizationList:
        tx.authorizationList == null
          ? undefined
          : tx.authorizationList.map((a) => {
              const { chainId, address, nonce, signature } = authorizationify(a);
              return { chainId, address, nonce, yParity: signature.yParity, r: signature.r, s: signature.s };
            }),
    });
    return (await this.client.signTransaction(this.address, body)).serialized;
  }

  /**
   * EIP-7702: the vault signs `{ chainId, address, nonce }` (AbstractSigner.populateAuthorization fills
   * chainId and nonce from the provider when left out: the pending nonce, which is the right one when
   * another account sends the type-4 transaction; when this signer sends it, give nonce + 1).
   */
  override async authorize(request: AuthorizationRequest): Promise<Authorization> {
    const filled = await this.populateAuthorization(request);
    const address = await resolveAddress(filled.address, this.provider);
    const chainId = getBigInt(filled.chainId ?? 0);
    const nonce = getBigInt(filled.nonce ?? 0);
    const signed = await authorizationSigner(this.client)(this.address, { chainId: chainId.toString(), address, nonce: nonce.toString() });
    return { address: getAddress(address), chainId, nonce, signature: Signature.from(signed.signature) };
  }
}
