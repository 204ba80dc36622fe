/** Remembers accepted auth-signature nonces for as long as their signature could still be valid. */
export interface ReplayGuard {
  /** Returns true the first time a nonce is seen before `expiresAt`, false for a replay. Atomic. */
  firstUse(nonce: string, expiresAt: Date): Promise<boolean>;
}
