import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Authenticate } from '../../src/application/access/authenticate.use-case.js';
import { RefusedAuthSummary } from '../../src/application/access/refused-auth-summary.js';
import { CreateWallet } from '../../src/application/wallets/create-wallet.use-case.js';
import { ExpireWallet } from '../../src/application/wallets/expire-wallet.use-case.js';
import { MapKeyStoreRegistry } from '../../src/application/keys/key-store-registry.js';
import { ListAuditRecords } from '../../src/application/audit/list-audit-records.use-case.js';
import { ManagePolicies } from '../../src/application/vaults/manage-policies.use-case.js';
import { ManageVaults } from '../../src/application/vaults/manage-vaults.use-case.js';
import { PurgeExpiredWallets } from '../../src/application/wallets/purge-expired-wallets.use-case.js';
import { RenameWallet } from '../../src/application/wallets/rename-wallet.use-case.js';
import { SignCall, type SignResult } from '../../src/application/signing/sign-call.use-case.js';
import { UnexpireWallet } from '../../src/application/wallets/unexpire-wallet.use-case.js';
import { VerifyAuditChain } from '../../src/application/audit/verify-audit-chain.use-case.js';
import { auditRecordHash } from '../../src/domain/audit-chain.js';
import { EXPIRY_TTL_MS } from '../../src/domain/wallet.js';
import type { AuditRecord } from '../../src/ports/audit-log.port.js';
import {
  InMemoryAuditLog,
  InMemoryPolicyRepository,
  InMemorySignatureLog,
  InMemoryWalletRepository,
} from '../support/in-memory.persistence.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import type { ChainReader } from '../../src/ports/chain-reader.port.js';
import { FixedClock } from '../support/movable-clock.js';
import { CONTRACT, SENDER, SIGNER_ABI } from '../support/sign-fixtures.js';
import { bearerCredential } from '../../adapters/http/caller.js';
import { gateOver } from '../support/policy-gate.js';
import { bindingsOver } from '../support/wallet-bindings.js';

const NO_RPC: ChainReader = { hasRpc: () => false, readSignable: () => Promise.reject(new Error('no rpc')) };

async function world(chainReader: ChainReader = NO_RPC) {
  const auditLog = new InMemoryAuditLog();
  const repo = new InMemoryWalletRepository(auditLog);
  const store = new InMemoryKeyStore('local');
  const registry = new MapKeyStoreRegistry([store], 'local');
  const clock = new FixedClock(new Date('2026-05-01T00:00:00Z'));
  const policies = new InMemoryPolicyRepository();
  let n = 0;
  const ids = { next: () => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}` };
  const manage = new ManageVaults(repo, clock, ids, auditLog);
  const vault = await manage.create({ name: 'main' });
  const { apiKey, record } = await manage.createApiKey(vault.id);
  const principal = { apiKeyId: record.id, vaultId: vault.id, roles: record.roles };
  const refusals = new RefusedAuthSummary(repo, clock, auditLog, 3);
  return {
    refusals,
    repo,
    store,
    clock,
    auditLog,
    vault,
    apiKey,
    principal,
    manage,
    policies: new ManagePolicies(repo, policies, clock, auditLog),
    authenticate: new Authenticate(repo, clock, refusals),
    create: new CreateWallet(repo, registry, bindingsOver(registry, auditLog, clock), clock, ids, auditLog),
    rename: new RenameWallet(repo, clock),
    expire: new ExpireWallet(repo, clock),
    unexpire: new UnexpireWallet(repo, clock),
    purge: new PurgeExpiredWallets(repo, registry, clock),
    sign: new SignCall({
      repository: repo,
      bindings: bindingsOver(registry, auditLog, clock),
      chainReader,
      signatureLog: new InMemorySignatureLog(auditLog),
      clock,
      random: (k) => randomBytes(k),
      gate: gateOver(policies, auditLog, clock),
    }),
    list: new ListAuditRecords(auditLog, repo),
    verify: (pageSize?: number) => new VerifyAuditChain(auditLog, pageSize).execute(),
    /** The records appended since `from` (a seq), without the chain fields. */
    since: (from: number) =>
      auditLog.records.slice(from).map(({ action, actor, vaultId, subject, details }) => ({ action, actor, vaultId, subject, details })),
  };
}

describe('the audit trail records every security-relevant event', () => {
  it('names the operator for vaults and API keys, and keys by id only', async () => {
    const w = await world();
    const { apiKey, record } = await w.manage.createApiKey(w.vault.id);
    await w.manage.revokeApiKey(record.id);
    await w.manage.revokeApiKey(record.id); // already revoked: no second record
    expect(w.since(0)).toEqual([
      { action: 'vault.created', actor: 'operator', vaultId: w.vault.id, subject: w.vault.id, details: { name: 'main', account: 'default' } },
      { action: 'api-key.created', actor: 'operator', vaultId: w.vault.id, subject: w.principal.apiKeyId, details: { roles: 'admin,signer,reader', allowCidrs: null } },
      { action: 'api-key.created', actor: 'operator', vaultId: w.vault.id, subject: record.id, details: { roles: 'admin,signer,reader', allowCidrs: null } },
      { action: 'api-key.revoked', actor: 'operator', vaultId: w.vault.id, subject: record.id, details: {} },
    ]);
    const text = JSON.stringify(w.auditLog.records);
    for (const key of [apiKey, w.apiKey]) expect(text).not.toContain(key.slice(20));
  });

  it('records wallet changes by the API key, once per change; no-op rename, expire and unexpire record nothing', async () => {
    const w = await world();
    const start = w.auditLog.records.length;
    const wallet = await w.create.execute({ principal: w.principal, name: 'treasury' });
    await w.rename.execute(w.principal, wallet.address, 'ops');
    await w.rename.execute(w.principal, wallet.address, 'ops');
    await w.unexpire.execute(w.principal, wallet.address);
    const expired = await w.expire.execute(w.principal, wallet.address);
    w.clock.advance(1000);
    await w.expire.execute(w.principal, wallet.address);
    await w.unexpire.execute(w.principal, wallet.address);
    const actor = `api-key:${w.principal.apiKeyId}`;
    const on = { actor, vaultId: w.vault.id, subject: wallet.address };
    expect(w.since(start)).toEqual([
      { action: 'wallet.created', ...on, details: { walletId: wallet.id, name: 'treasury', keyStore: 'local' } },
      { action: 'wallet.renamed', ...on, details: { walletId: wallet.id, from: 'treasury', to: 'ops' } },
      { action: 'wallet.expired', ...on, details: { walletId: wallet.id, expires: expired.expires!.toISOString() } },
      { action: 'wallet.unexpired', ...on, details: { walletId: wallet.id, cancelledExpiry: expired.expires!.toISOString() } },
    ]);
    expect(w.auditLog.records.at(-1)!.at).toEqual(w.clock.now());
  });

  it('records the purge deleting a wallet as the system, after the record is gone', async () => {
    const w = await world();
    const wallet = await w.create.execute({ principal: w.principal, name: 'doomed' });
    const expired = await w.expire.execute(w.principal, wallet.address);
    w.clock.advance(EXPIRY_TTL_MS);
    const start = w.auditLog.records.length;
    w.store.failNext = 1;
    await w.purge.execute(); // the key store fails: nothing was deleted, so nothing is recorded
    expect(w.since(start)).toEqual([]);
    await w.purge.execute();
    expect(w.since(start)).toEqual([
      {
        action: 'wallet.deleted',
        actor: 'system',
        vaultId: w.vault.id,
        subject: wallet.address,
        details: { walletId: wallet.id, keyStore: 'local', expired: expired.expires!.toISOString() },
      },
    ]);
  });

  it('records a signature under its submissionHash with wallet, chain, contract, the uniq it signed with, selector and sender', async () => {
    const w = await world();
    const wallet = await w.create.execute({ principal: w.principal, name: 'signer' });
    const start = w.auditLog.records.length;
    const result = (await w.sign.execute({
      principal: w.principal,
      ...{ chain: 'local', contract: CONTRACT.toLowerCase(), sender: SENDER, uniq: `0x${'11'.repeat(32)}`, signer: wallet.address, abi: SIGNER_ABI, args: [7] },
    })) as SignResult;
    expect(w.since(start)).toEqual([
      {
        action: 'signature.issued',
        actor: `api-key:${w.principal.apiKeyId}`,
        vaultId: w.vault.id,
        subject: result.submissionHash,
        details: { wallet: wallet.address, chain: 'local', contract: CONTRACT, uniq: `0x${'11'.repeat(32)}`, selector: expect.stringMatching(/^0x[0-9a-f]{8}$/), sender: SENDER },
      },
    ]);
  });

  it('summarises refused authentication per source: a count and the reasons, the key id when it parsed, never the key', async () => {
    const w = await world();
    const [, id, secret] = /^wv_([0-9a-f]{16})_(.+)$/.exec(w.apiKey)!;
    const wrongSecret = `wv_${id}_${'A'.repeat(43)}`;
    const unknownKey = `wv_ffffffffffffffff_${secret}`;
    const start = w.auditLog.records.length;
    const attempts: [string | undefined, string, string][] = [
      [undefined, w.vault.id, '203.0.113.7'],
      ['Basic abc', w.vault.id, '203.0.113.7'],
      ['Bearer not-a-key', w.vault.id, '203.0.113.7'],
      [`Bearer ${wrongSecret}`, w.vault.id, '198.51.100.1'],
      [`Bearer ${wrongSecret}`, w.vault.id, '198.51.100.1'],
      [`Bearer ${unknownKey}`, w.vault.id, '2001:db8::1'],
      [`Bearer ${w.apiKey}`, 'no-such-vault', '2001:db8::1'],
    ];
    for (const [header, vaultId, source] of attempts) {
      await expect(w.authenticate.execute(bearerCredential(header), vaultId, source)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    await expect(w.authenticate.execute(w.apiKey, w.vault.id, '203.0.113.7')).resolves.toEqual(w.principal);
    expect(w.since(start)).toEqual([]); // nothing written per request
    expect(await w.refusals.flush()).toEqual({ written: 3, lost: [] });
    const since = w.clock.now().toISOString();
    expect(w.since(start)).toEqual([
      {
        action: 'auth.refused',
        actor: 'anonymous',
        vaultId: w.vault.id,
        subject: null,
        details: {
          source: '203.0.113.7',
          count: 3,
          since,
          reasons: 'missing Authorization header: 1; not the Bearer scheme: 1; malformed API key: 1',
          apiKeys: null,
          vaults: w.vault.id,
        },
      },
      {
        action: 'auth.refused',
        actor: `api-key:${id}`,
        vaultId: w.vault.id,
        subject: null,
        details: { source: '198.51.100.1', count: 2, since, reasons: 'wrong secret: 2', apiKeys: id, vaults: w.vault.id },
      },
      {
        action: 'auth.refused',
        actor: 'anonymous',
        vaultId: null,
        subject: null,
        details: { source: '2001:db8::1', count: 2, since, reasons: 'unknown API key: 1; malformed vault id: 1', apiKeys: `ffffffffffffffff,${id}`, vaults: w.vault.id },
      },
    ]);
    expect(await w.refusals.flush()).toEqual({ written: 0, lost: [] }); // a new interval starts empty
    const text = JSON.stringify(w.auditLog.records);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('A'.repeat(43));
    expect(text).not.toContain('no-such-vault');
  });

  it('keeps memory bounded: past the source cap, further addresses are tallied together as "other"', async () => {
    const w = await world();
    const start = w.auditLog.records.length;
    for (let i = 0; i < 50; i++) {
      await expect(w.authenticate.execute(undefined, w.vault.id, `10.0.0.${i}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    expect(await w.refusals.flush()).toEqual({ written: 4, lost: [] });
    const summaries = w.since(start).map((r) => [r.details.source, r.details.count]);
    expect(summaries).toEqual([['10.0.0.0', 1], ['10.0.0.1', 1], ['10.0.0.2', 1], ['other', 47]]);
  });

  it('path text that cannot be a vault id is refused as an unknown vault is, and never reaches the repository', async () => {
    const w = await world();
    const asked: string[] = [];
    const findApiKey = w.repo.findApiKey.bind(w.repo);
    const findVault = w.repo.findVault.bind(w.repo);
    w.repo.findApiKey = (id) => (asked.push(`key ${id}`), findApiKey(id));
    w.repo.findVault = (id) => (asked.push(`vault ${id}`), findVault(id));
    const unknown = '0190f5a0-0000-7000-8000-000000000000';
    const refusalOf = (header: string | undefined, vaultId: string) =>
      w.authenticate.execute(bearerCredential(header), vaultId, '203.0.113.9').then(
        () => 'accepted',
        (e: Error) => e.message,
      );
    for (const header of [undefined, 'Basic x', `Bearer ${w.apiKey}`]) {
      const expected = await refusalOf(header, unknown);
      for (const malformed of ['\u0000', 'a'.repeat(300), 'no-such-vault', `${unknown}0`, `${w.vault.id}\u0000`, '']) {
        expect(await refusalOf(header, malformed)).toBe(expected);
      }
    }
    await w.refusals.flush();
    // The key's one lookup is for the well-formed unknown vault; the vault lookup is the flush's.
    expect(asked).toEqual([`key ${w.principal.apiKeyId}`, `vault ${unknown}`]);
  });

  it('one source whose summary cannot be written loses only its own record, and it is reported', async () => {
    const w = await world();
    const findVault = w.repo.findVault.bind(w.repo);
    const broken = '0190f5a0-0000-7000-8000-0000000000ff';
    w.repo.findVault = (id) => (id === broken ? Promise.reject(new Error('lookup failed')) : findVault(id));
    const append = w.auditLog.append.bind(w.auditLog);
    w.auditLog.append = (e) => (e.details.source === '10.0.0.3' ? Promise.reject(new Error('append failed')) : append(e));
    const start = w.auditLog.records.length;
    const summary = new RefusedAuthSummary(w.repo, w.clock, w.auditLog);
    const refuse = (vaultId: string, source: string) => summary.refused({ source, vaultId, reason: 'missing_header', apiKeyId: null });
    refuse(w.vault.id, '10.0.0.1');
    refuse(broken, '10.0.0.2');
    refuse(w.vault.id, '10.0.0.3');
    refuse('\u0000', '10.0.0.4');
    refuse(w.vault.id, 'bad\u0000source\n');
    const { written, lost } = await summary.flush();
    expect(written).toBe(3);
    expect(lost.map(({ source, count, error }) => [source, count, (error as Error).message])).toEqual([
      ['10.0.0.2', 1, 'lookup failed'],
      ['10.0.0.3', 1, 'append failed'],
    ]);
    expect(w.since(start).map((r) => [r.details.source, r.vaultId])).toEqual([
      ['10.0.0.1', w.vault.id],
      ['10.0.0.4', null],
      ['bad\\u{0000}source\\u{000A}', w.vault.id], // not user input: escaped, so it can be stored anywhere
    ]);
  });

  it('records policy changes by the operator; clearing no policy records nothing', async () => {
    const w = await world();
    const start = w.auditLog.records.length;
    expect(await w.policies.clear(w.vault.id)).toEqual({ cleared: false });
    await w.policies.set(w.vault.id, { chains: ['sepolia', 'ethereum'], selectors: ['0xABCDEF01'] });
    expect(await w.policies.clear(w.vault.id)).toEqual({ cleared: true });
    const on = { action: 'policy.changed', actor: 'operator', vaultId: w.vault.id, subject: w.vault.id };
    expect(w.since(start)).toEqual([
      { ...on, details: { policy: 'set', chains: 'sepolia,ethereum', contracts: null, selectors: '0xabcdef01', senders: null, contractUniqs: null, trustRpcUniq: null, txChainIds: null, txTo: null, txSelectors: null, txMaxValue: null, txMaxFee: null, txContractCreation: false, typedDataContracts: null, messages: false, rules: null, limits: null } },
      { ...on, details: { policy: 'none', chains: null, contracts: null, selectors: null, senders: null, contractUniqs: null, trustRpcUniq: null, txChainIds: null, txTo: null, txSelectors: null, txMaxValue: null, txMaxFee: null, txContractCreation: false, typedDataContracts: null, messages: false, rules: null, limits: null } },
    ]);
  });
});

describe('reading and verifying the trail', () => {
  async function filled(events: number) {
    const w = await world();
    for (let i = 0; i < events; i++) await w.create.execute({ principal: w.principal, name: `w${i}` });
    return w;
  }

  it('lists in seq order after a seq, limited, optionally of one vault', async () => {
    const w = await filled(5);
    const other = await w.manage.create({ name: 'other' });
    const all = await w.list.execute({});
    expect(all.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await w.list.execute({ afterSeq: 3, limit: 2 })).map((r) => r.seq)).toEqual([4, 5]);
    expect((await w.list.execute({ vaultId: other.id })).map((r) => r.action)).toEqual(['vault.created']);
    await expect(w.list.execute({ limit: 0 })).rejects.toThrow(/limit: must be an integer from 1 to 1000/);
    await expect(w.list.execute({ limit: 1001 })).rejects.toThrow(/limit/);
    await expect(w.list.execute({ afterSeq: -1 })).rejects.toThrow(/after: must be an integer >= 0/);
    await expect(w.list.execute({ vaultId: 'nope' })).rejects.toThrow(/vault nope does not exist/);
  });

  it('verifies an intact chain across pages and reports its head', async () => {
    const w = await filled(7);
    const verdict = await w.verify(3);
    const last = w.auditLog.records.at(-1)!;
    expect(verdict).toEqual({ ok: true, records: 9, head: { seq: 9, hash: last.hash } });
    expect(await new VerifyAuditChain(new InMemoryAuditLog()).execute()).toEqual({ ok: true, records: 0, head: null });
  });

  const tamper = (records: AuditRecord[], index: number, change: Partial<AuditRecord>) => {
    records[index] = { ...records[index]!, ...change };
  };

  it('names the first altered record, whether its content, its hash or its link changed', async () => {
    const content = await filled(6);
    tamper(content.auditLog.records, 4, { details: { ...content.auditLog.records[4]!.details, name: 'evil' } });
    expect(await content.verify(2)).toMatchObject({ ok: false, brokenSeq: 5, records: 4, problem: expect.stringMatching(/seq 5: its content/) });

    // Rewriting the hash to match the new content moves the break to the next record's link.
    const rehashed = await filled(6);
    const r = rehashed.auditLog.records[2]!;
    const forged = { ...r, actor: 'operator' };
    tamper(rehashed.auditLog.records, 2, { actor: 'operator', hash: auditRecordHash(r.seq, r.prevHash, forged) });
    expect(await rehashed.verify()).toMatchObject({ ok: false, brokenSeq: 4, problem: expect.stringMatching(/seq 4: prevHash/) });
  });

  it('names a missing seq when a record is removed from the middle', async () => {
    const w = await filled(6);
    w.auditLog.records.splice(3, 1);
    expect(await w.verify(2)).toMatchObject({ ok: false, brokenSeq: 4, records: 3, problem: expect.stringMatching(/seq 4 is missing/) });
  });
});

describe('signing under a policy', () => {
  it('refuses outside the policy before the key store is touched, records the refusal and no signature', async () => {
    const w = await world();
    const wallet = await w.create.execute({ principal: w.principal, name: 'signer' });
    await w.policies.set(w.vault.id, { contracts: [CONTRACT], contractUniqs: [`${CONTRACT}=0x${'11'.repeat(32)}`] });
    const body = (contract: string) => ({
      chain: 'local', contract, sender: SENDER, uniq: `0x${'11'.repeat(32)}`, signer: wallet.address, abi: SIGNER_ABI, args: [7],
    });
    const start = w.auditLog.records.length;
    w.store.failNext = 1; // a key store call would fail with KEYSTORE_UNAVAILABLE instead
    const other = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
    await expect(w.sign.execute({ principal: w.principal, ...body(other.toLowerCase()) })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: `policy: no rule of this vault's policy allows this call (rule calls: contract ${other} is not in its contracts)`,
    });
    expect(w.store.failNext).toBe(1);
    expect(w.since(start)).toEqual([
      expect.objectContaining({
        action: 'sign.denied',
        actor: `api-key:${w.principal.apiKeyId}`,
        vaultId: w.vault.id,
        subject: null,
        details: {
          rule: `policy: no rule of this vault's policy allows this call (rule calls: contract ${other} is not in its contracts)`,
          chain: 'local',
          contract: other,
          uniq: `0x${'11'.repeat(32)}`,
          selector: expect.stringMatching(/^0x[0-9a-f]{8}$/),
          sender: SENDER,
        },
      }),
    ]);
    w.store.failNext = 0;
    await expect(w.sign.execute({ principal: w.principal, ...body(CONTRACT) })).resolves.toMatchObject({ submissionHash: expect.any(String) });
  });

  it('on a chain with an RPC, checks a pinned uniq against the one read from the contract, after the read', async () => {
    const onChain = `0x${'22'.repeat(32)}`;
    let reads = 0;
    let signer = '';
    const w = await world({ hasRpc: (chain) => chain === 'sepolia', readSignable: async () => (reads++, { uniq: onChain, signer }) });
    signer = (await w.create.execute({ principal: w.principal, name: 'signer' })).address;
    const body = { chain: 'sepolia', contract: CONTRACT, sender: SENDER, abi: SIGNER_ABI, args: [7] };
    // Where the vault reads uniq() itself, the RPC chooses it: without a pin, only the operator's trust lets it through.
    await w.policies.set(w.vault.id, { contracts: [CONTRACT] });
    await expect(w.sign.execute({ principal: w.principal, ...body })).rejects.toMatchObject({ code: 'POLICY_DENIED', message: expect.stringMatching(/--trust-rpc-uniq/) });
    expect(reads).toBe(0);
    await w.policies.set(w.vault.id, { contracts: [CONTRACT], trustRpcUniq: [CONTRACT] });
    await expect(w.sign.execute({ principal: w.principal, ...body })).resolves.toHaveProperty('submissionHash');
    expect(w.auditLog.records.at(-1)).toMatchObject({ action: 'signature.issued', details: { uniq: onChain } });

    const pinned = `0x${'11'.repeat(32)}`;
    await w.policies.set(w.vault.id, { contracts: [CONTRACT], contractUniqs: [`${CONTRACT}=${pinned}`] });
    const start = w.auditLog.records.length;
    const rule = `policy: uniq ${onChain} is not the uniq pinned for contract ${CONTRACT}`;
    await expect(w.sign.execute({ principal: w.principal, ...body })).rejects.toMatchObject({ code: 'POLICY_DENIED', message: rule });
    expect(reads).toBe(2);
    expect(w.since(start)).toEqual([expect.objectContaining({ action: 'sign.denied', details: expect.objectContaining({ rule, uniq: onChain }) })]);
  });
});
