import { parseAddress } from '../../domain/address.js';
import { DomainError, ErrorCode } from '../../domain/errors.js';
import type { Vault } from '../../domain/vault.js';
import { walletState, type Wallet } from '../../domain/wallet.js';
import type { AuditAction, AuditDetails, AuditEvent } from '../../ports/audit-log.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { VaultStore } from '../../ports/vault-store.port.js';
import type { WalletStore } from '../../ports/wallet-store.port.js';
import { actorOf, auditEvent } from '../audit/audit-actor.js';
import type { Principal } from '../access/authenticate.use-case.js';
import { ReadThroughCache } from '../signing/read-through-cache.js';

export async function requireVault(repository: VaultStore, vaultId: string): Promise<Vault> {
  const vault = await repository.findVault(vaultId);
  if (!vault) throw new DomainError(ErrorCode.VAULT_NOT_FOUND, `vault ${vaultId} does not exist`);
  return vault;
}

/** Paths accept an address in any case; responses always carry EIP-55. */
export async function requireWallet(
  repository: WalletStore,
  vaultId: string,
  rawAddress: string,
  now: Date,
): Promise<Wallet> {
  return requireWalletAt(repository, vaultId, parseAddress(rawAddress, 'address', { anyCase: true }), now);
}

/** requireWallet for an address already parsed (EIP-55): a datum is parsed once per request. */
async function requireWalletAt(repository: WalletStore, vaultId: string, address: string, now: Date): Promise<Wallet> {
  const wallet = await repository.findWallet(vaultId, address, now);
  if (!wallet) throw new DomainError(ErrorCode.WALLET_NOT_FOUND, `wallet ${address} not found in this vault`);
  return wallet;
}

/** How long a signer found for a vault is reused by sign (see SignerCache). */
export const SIGNER_CACHE_TTL_MS = 5_000;
const MAX_SIGNERS = 10_000;

/**
 * requireWallet for the sign path, where the same few signers are looked up on every request. A wallet
 * found is reused for a few seconds, but its expiry is checked against the clock on every use, so it
 * stops signing at its expiry instant exactly (and is then looked up again: it may have been unexpired).
 * A cached copy showing no expiry cannot miss one either: expiring sets the instant 30 days out, far
 * beyond the TTL. Misses are never cached: a wallet created through another process signs at once. What can go stale
 * for the TTL is what sign does not read (the name), the key reference after a rewrap, which key
 * stores keep accepting until the old wrapping version is retired (with the binding that covers it), and
 * a binding an operator wrote since (`wallets bind`): that wallet is refused for the TTL still, never signed
 * with a row its binding does not cover.
 */
export class SignerCache {
  private readonly wallets: ReadThroughCache<string, Wallet>;

  constructor(
    private readonly repository: WalletStore,
    ttlMs = SIGNER_CACHE_TTL_MS,
  ) {
    this.wallets = new ReadThroughCache({ ttlMs, maxEntries: MAX_SIGNERS, usable: (wallet, now) => walletState(wallet, now) !== 'deleted' });
  }

  async require(vaultId: string, rawAddress: string, now: Date): Promise<Wallet> {
    return this.requireParsed(vaultId, parseAddress(rawAddress, 'address', { anyCase: true }), now);
  }

  /** require() for an address already parsed to EIP-55 (Sign's signer: checked by the request, or the contract's answer). */
  async requireParsed(vaultId: string, address: string, now: Date): Promise<Wallet> {
    return this.wallets.read(`${vaultId}/${address}`, now, () => requireWalletAt(this.repository, vaultId, address, now));
  }
}

const MAX_ATTEMPTS = 5;

/** The wallet after a transition, and the one before it when the transition changed something (else null). */
export interface Mutation {
  readonly wallet: Wallet;
  readonly previous: Wallet | null;
  readonly at: Date;
}

/**
 * Applies a domain transition with optimistic concurrency: re-read and retry when another writer got
 * there first, so two concurrent renames or expires never lose an update. `recorded` gives the audit
 * event of a write that changes something, written in the same transaction as the write that wins.
 */
export async function mutateWallet(
  repository: WalletStore,
  clock: Clock,
  vaultId: string,
  rawAddress: string,
  transition: (wallet: Wallet, now: Date) => Wallet,
  recorded?: (after: Wallet, before: Wallet, at: Date) => AuditEvent,
): Promise<Mutation> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const now = clock.now();
    const current = await requireWallet(repository, vaultId, rawAddress, now);
    const next = transition(current, now);
    if (next === current) return { wallet: current, previous: null, at: now };
    const written = { ...next, version: current.version + 1 };
    if (await repository.updateWallet(written, recorded?.(written, current, now))) return { wallet: written, previous: current, at: now };
  }
  throw new DomainError(ErrorCode.CONFLICT, 'the wallet is being changed concurrently; retry the request');
}

/**
 * A client's change to a wallet (rename, expire, unexpire), recorded in the audit trail against its API
 * key in the same transaction as the write: both durable, or neither (a crash cannot keep the change
 * and lose its record, which webhooks deliver). A transition that changes nothing writes nothing and
 * records nothing.
 */
export async function changeWallet(
  deps: { readonly repository: WalletStore; readonly clock: Clock },
  principal: Principal,
  rawAddress: string,
  transition: (wallet: Wallet, now: Date) => Wallet,
  action: AuditAction,
  details: (after: Wallet, before: Wallet) => AuditDetails,
): Promise<Wallet> {
  const m = await mutateWallet(deps.repository, deps.clock, principal.vaultId, rawAddress, transition, (after, before, at) =>
    auditEvent(action, at, actorOf(principal), principal.vaultId, after.address, { walletId: after.id, ...details(after, before) }),
  );
  return m.wallet;
}
