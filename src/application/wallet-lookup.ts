import { parseAddress } from '../domain/address.js';
import { DomainError, ErrorCode } from '../domain/errors.js';
import type { Wallet } from '../domain/wallet.js';
import type { Clock } from '../ports/clock.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';

/** Paths accept an address in any case; responses always carry EIP-55. */
export async function requireWallet(
  repository: WalletRepository,
  vaultId: string,
  rawAddress: string,
  now: Date,
): Promise<Wallet> {
  const address = parseAddress(rawAddress, 'address', { anyCase: true });
  const wallet = await repository.findWallet(vaultId, address, now);
  if (!wallet) throw new DomainError(ErrorCode.WALLET_NOT_FOUND, `wallet ${address} not found in this vault`);
  return wallet;
}

const MAX_ATTEMPTS = 5;

/**
 * Applies a domain transition with optimistic concurrency: re-read and retry when another writer got
 * there first, so two concurrent renames or expires never lose an update.
 */
export async function mutateWallet(
  repository: WalletRepository,
  clock: Clock,
  vaultId: string,
  rawAddress: string,
  transition: (wallet: Wallet, now: Date) => Wallet,
): Promise<Wallet> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const now = clock.now();
    const current = await requireWallet(repository, vaultId, rawAddress, now);
    const next = transition(current, now);
    if (next === current) return current;
    const written = { ...next, version: current.version + 1 };
    if (await repository.updateWallet(written)) return written;
  }
  throw new DomainError(ErrorCode.CONFLICT, 'the wallet is being changed concurrently; retry the request');
}
