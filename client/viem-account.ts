import type { LocalAccount, SerializeTransactionFn, TransactionSerializable } from 'viem';
import { toAccount } from 'viem/accounts';
import { authorizationSigner, bytesToHex, toJsonValue, transactionBody, type HexString, type StandardSigningClient, type TypedDataRequest } from './standard-signing.js';

export type { StandardSigningClient } from './standard-signing.js';

/**
 * A vault wallet as a viem account (`wallet-vault/viem`): `walletClient.sendTransaction`,
 * `signMessage`, `signTypedData` and `writeContract` work unchanged, every signature made by the vault
 * under its policy (docs/standard-signing.md). The key never leaves the vault; viem fills nonce, gas and
 * fees from its own transport, then asks the vault to sign.
 */
export function vaultAccount({ client, address }: { client: StandardSigningClient; address: HexString }): LocalAccount {
  return toAccount({
    address,
    async signMessage({ message }) {
      const payload = typeof message === 'string' ? message : { raw: typeof message.raw === 'string' ? message.raw : bytesToHex(message.raw) };
      return (await client.signMessage(address, payload)).signature;
    },
    async signTypedData(typedData) {
      return (await client.signTypedData(address, toJsonValue(typedData) as TypedDataRequest)).signature;
    },
    async signTransaction(transaction: TransactionSerializable, options?: { serializer?: SerializeTransactionFn<TransactionSerializable> }) {
      // A chain's own serializer (OP stack deposits, Celo fee currencies) writes fields the vault does not
      // sign: refused rather than signed as a plain Ethereum transaction.
      if (options?.serializer !== undefined) {
        throw new Error("wallet-vault's viem account signs legacy, eip2930, eip1559 and eip7702 transactions only, not a chain's own serialisation");
      }
      return (await client.signTransaction(address, transactionBody(transaction as Readonly<Record<string, unknown>>))).serialized;
    },
    // EIP-7702: `walletClient.signAuthorization` (viem fills chainId and nonce first) signs through the vault.
    async signAuthorization(request) {
      const delegate = (request.address ?? request.contractAddress)!;
      const signed = await authorizationSigner(client)(address, { chainId: request.chainId, address: delegate, nonce: request.nonce });
      return { address: delegate, chainId: request.chainId, nonce: request.nonce, r: signed.r, s: signed.s, yParity: signed.yParity, v: BigInt(signed.yParity + 27) };
    },
  });
}
