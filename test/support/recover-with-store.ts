import { randomBytes } from 'node:crypto';
import { hexlify, recoverAddress } from 'ethers';
import type { KeyStoreRegistry } from '../../src/ports/key-store.port.js';
import { KEY_STORE_REGISTRY, WALLET_REPOSITORY } from '../../adapters/main/tokens.js';
import type { WalletRepository } from '../../src/ports/wallet-repository.port.js';
import type { TestServer } from './test-server.js';

/** Signs a random digest with the wallet's key through the key store and returns the recovered address. */
export async function recoverWithStore(s: TestServer, vaultId: string, address: string): Promise<string> {
  const repo = s.server.container.get<WalletRepository>(WALLET_REPOSITORY);
  const wallet = await repo.findWallet(vaultId, address, new Date());
  if (!wallet) throw new Error(`wallet ${address} not found`);
  const digest = randomBytes(32);
  const sig = await s.server.container.get<KeyStoreRegistry>(KEY_STORE_REGISTRY).get(wallet.keyStore).sign(wallet.keyRef, digest);
  return recoverAddress(digest, { r: hexlify(sig.r), s: hexlify(sig.s), v: sig.v });
}

