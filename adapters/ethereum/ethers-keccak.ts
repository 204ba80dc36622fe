import { keccak256 as ethersKeccak256 } from 'ethers';
import { keccak256 } from '../../src/domain/keccak.js';

let registered = false;

/**
 * Has ethers hash with the domain's keccak256 (the native sponge the composition installs) instead of
 * its JavaScript one: ethers hashes inside every address it checks (EIP-55), every EIP-712 struct and
 * every transaction it serialises, and measured (bench:standard-sign) this is a large part of a
 * sign-transaction's and most of a sign-typed-data's CPU. `keccak256.register` is ethers' own hook for
 * exactly this; the hash is the same function, so nothing else using this copy of ethers sees a change
 * but speed. Before the composition installs the domain's hash, and where an application locked ethers'
 * hook, ethers keeps (or falls back to) its own.
 */
export function hashEthersWithDomainKeccak(): void {
  if (registered) return;
  registered = true;
  const own = ethersKeccak256._;
  try {
    ethersKeccak256.register((data) => {
      try {
        return keccak256(data);
      } catch {
        return own(data);
      }
    });
  } catch {
    // keccak256.lock() was called by the application: its choice stands.
  }
}
