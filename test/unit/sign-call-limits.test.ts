import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CreateWallet } from '../../src/application/wallets/create-wallet.use-case.js';
import { SignCall } from '../../src/application/signing/sign-call.use-case.js';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { parseSignLimit, type SignLimitInput } from '../../src/domain/sign-limits.js';
import type { SignCounter } from '../../src/ports/sign-counter.port.js';
import { InMemoryPolicyRepository, InMemorySignatureLog, InMemorySignCounter } from '../support/in-memory.persistence.js';
import { CONTRACT, SENDER, SIGNER_ABI } from '../support/sign-fixtures.js';
import { signWorld } from '../support/sign-world.js';
import { gateOver } from '../support/policy-gate.js';
import { bindingsOver } from '../support/wallet-bindings.js';

const UNIQ = `0x${'ab'.repeat(32)}`;
const OTHER_WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** SignCall over in-memory ports, a vault with one wallet, and a policy of `limits` alone. */
async function world(limits: readonly SignLimitInput[], counter: SignCounter | undefined) {
  const { repo, store, registry, clock, auditLog, ids, vault, principal } = await signWorld();
  const policies = new InMemoryPolicyRepository();
  if (limits.length > 0) await policies.save(vault.id, { limits: limits.map(parseSignLimit) }, clock.now());
  const noRpc = { hasRpc: () => false, readSignable: () => Promise.reject(new Error('no rpc')) };
  const sign = new SignCall({
    repository: repo,
    bindings: bindingsOver(registry, auditLog, clock),
    chainReader: noRpc,
    signatureLog: new InMemorySignatureLog(auditLog),
    clock,
    random: (k) => randomBytes(k),
    gate: gateOver(policies, auditLog, clock, counter),
  });
  const wallet = await new CreateWallet(repo, registry, bindingsOver(registry, auditLog, clock), clock, ids, auditLog).execute({ principal, name: 's' });
  const signOnce = () => sign.execute({ principal, chain: 'local', contract: CONTRACT, sender: SENDER, uniq: UNIQ, signer: wallet.address, abi: SIGNER_ABI, args: ['1'] });
  const refusal = () => signOnce().then(() => null, (error: unknown) => error as DomainError);
  return { store, clock, auditLog, policies, vault, wallet, signOnce, refusal };
}

describe('Sign under limits per window', () => {
  it('counts a sign that fails after the count (the key store), and says when the window has room again', async () => {
    const w = await world([{ each: 'wallet', maxSigns: 2, per: '1m' }], new InMemorySignCounter());
    w.store.failNext = 1;
    expect((await w.refusal())?.code).toBe(ErrorCode.KEYSTORE_UNAVAILABLE);
    w.clock.advance(15_000);
    await w.signOnce();
    const refused = (await w.refusal())!;
    expect(refused.code).toBe(ErrorCode.SIGN_LIMIT_REACHED);
    // The failed sign, counted at 0 s, leaves the window at 60 s.
    expect(refused.retryAfterSeconds).toBe(45);
    expect(w.auditLog.records.filter((r) => r.action === 'sign.denied').map((r) => r.details.rule)).toEqual([refused.message]);
    w.clock.advance(45_000);
    await w.signOnce();
  });

  it('fails closed without a counter when a limit binds the sign, and signs when none does', async () => {
    const bound = await world([{ each: 'contract', maxSigns: 100, per: '1h' }], undefined);
    const refused = (await bound.refusal())!;
    expect(refused.code).toBe(ErrorCode.POLICY_DENIED);
    expect(refused.message).toMatch(/limits need a persistence that counts signs/);
    const elsewhere = await world([{ wallet: OTHER_WALLET, maxSigns: 1, per: '1h' }], undefined);
    await elsewhere.signOnce();
    await elsewhere.signOnce();
  });

  it('a limit on one wallet binds that wallet, named by address in any case', async () => {
    const w = await world([], new InMemorySignCounter());
    await w.policies.save(w.vault.id, { limits: [parseSignLimit({ wallet: w.wallet.address.toLowerCase(), maxSigns: 1, per: '1d' })] }, w.clock.now());
    await w.signOnce();
    expect(await w.refusal()).toMatchObject({ code: ErrorCode.SIGN_LIMIT_REACHED, retryAfterSeconds: 86_400, message: `limit l1: at most 1 sign per 1d for wallet ${w.wallet.address} reached; retry after 86400 s` });
  });

  it('asks the counter nothing when the policy has no limits (no round trip on the sign path)', async () => {
    let takes = 0;
    const counter: SignCounter = { take: async () => (takes++, { allowed: true, retryAfterMs: 0 }) };
    const w = await world([], counter);
    for (let i = 0; i < 3; i++) await w.signOnce();
    expect(takes).toBe(0);
  });
});
