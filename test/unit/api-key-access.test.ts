import { describe, expect, it } from 'vitest';
import { Authenticate } from '../../src/application/access/authenticate.use-case.js';
import { Authorize } from '../../src/application/access/authorize.use-case.js';
import { generateApiKey } from '../../src/application/access/api-key-format.js';
import type { RefusedAuth } from '../../src/application/access/refused-auth-summary.js';
import { addressInCidrs, ALL_ROLES, parseCidrs, parseRoles } from '../../src/domain/api-key-access.js';
import { ManageVaults } from '../../src/application/vaults/manage-vaults.use-case.js';
import { UuidV7IdGenerator } from '../../adapters/system/uuid-v7.id-generator.js';
import { FixedClock } from '../../adapters/testing/clocks.js';
import { InMemoryAuditLog, InMemoryWalletRepository } from '../../adapters/testing/in-memory.persistence.js';
import { anApiKey, aVault } from '../support/wallet-mother.js';

const inside = (address: string, ranges: string) => addressInCidrs(address, parseCidrs(ranges));

describe('roles', () => {
  it('parses a list into the canonical order without repeats, and refuses an unknown or empty one', () => {
    expect(parseRoles('reader,signer reader')).toEqual(['signer', 'reader']);
    expect(() => parseRoles('signer,root')).toThrow(/roles: "root" is not one of admin, signer, reader, approver/);
    expect(() => parseRoles(' , ')).toThrow(/at least one/);
    expect(() => parseRoles('Admin')).toThrow(/"Admin"/);
  });
});

describe('creating keys: approvers apart', () => {
  const manage = async () => {
    const auditLog = new InMemoryAuditLog();
    const repo = new InMemoryWalletRepository(auditLog);
    const m = new ManageVaults(repo, new FixedClock(new Date('2026-05-01T00:00:00Z')), new UuidV7IdGenerator(), auditLog);
    return { m, repo, vaultId: (await m.create({ name: 'v' })).id };
  };

  it('a key made without roles holds every role but approver', async () => {
    const { m, vaultId } = await manage();
    expect((await m.createApiKey(vaultId)).record.roles).toEqual(['admin', 'signer', 'reader']);
  });

  it('approver with signer or admin is refused naming allowSignerApprover, and nothing is stored; with it, or approver alone, the key is made', async () => {
    const { m, repo, vaultId } = await manage();
    for (const roles of [['signer', 'approver'], ['admin', 'approver'], [...ALL_ROLES]] as const) {
      await expect(m.createApiKey(vaultId, { roles }), roles.join()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/allowSignerApprover/) });
    }
    expect(await repo.listApiKeys(vaultId)).toEqual([]);
    expect((await m.createApiKey(vaultId, { roles: ['approver'] })).record.roles).toEqual(['approver']);
    expect((await m.createApiKey(vaultId, { roles: ['signer', 'approver'], allowSignerApprover: true })).record.roles).toEqual(['signer', 'approver']);
  });
});

describe('network allow lists: the attempts to call from outside', () => {
  it('IPv4: inside and one past each end of a range; a bare address is its /32', () => {
    expect(inside('10.255.255.255', '10.0.0.0/8')).toBe(true);
    expect(inside('11.0.0.0', '10.0.0.0/8')).toBe(false);
    expect(inside('9.255.255.255', '10.0.0.0/8')).toBe(false);
    expect(inside('192.0.2.7', '192.0.2.7')).toBe(true);
    expect(inside('192.0.2.8', '192.0.2.7/32')).toBe(false);
    expect(inside('1.2.3.4', '0.0.0.0/0')).toBe(true);
  });

  it('IPv6: compressed and full forms alike, a zone ignored; an IPv6 range never admits an IPv4 client by accident', () => {
    expect(inside('2001:db8:0:0:0:0:0:1', '2001:db8::/32')).toBe(true);
    expect(inside('2001:DB8:ffff::1%eth0', '2001:db8::/32')).toBe(true);
    expect(inside('2001:db9::1', '2001:db8::/32')).toBe(false);
    expect(inside('::1', '::1/128')).toBe(true);
    expect(inside('::2', '::1')).toBe(false);
    expect(inside('10.0.0.1', '2001:db8::/32')).toBe(false);
    expect(inside('10.0.0.1', 'fd00::/8')).toBe(false);
  });

  it('IPv4-mapped IPv6 (a dual-stack socket) is its IPv4 address, dotted or hex, in and out of range', () => {
    expect(inside('::ffff:10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(inside('::ffff:a01:203', '10.0.0.0/8')).toBe(true);
    expect(inside('::FFFF:11.1.2.3', '10.0.0.0/8')).toBe(false);
    // Not mapped: IPv4-compatible (deprecated) and NAT64 forms are other IPv6 addresses.
    expect(inside('::10.1.2.3', '10.0.0.0/8')).toBe(false);
    expect(inside('64:ff9b::10.1.2.3', '10.0.0.0/8')).toBe(false);
    expect(inside('10.1.2.3', '::ffff:0:0/96')).toBe(true);
  });

  it('text that is no address is inside nothing, even 0.0.0.0/0', () => {
    for (const address of ['unknown', '', '10.0.0', '10.0.0.256', '010.0.0.1', '1::2::3', '1:2:3:4:5:6:7:8:9', 'localhost']) {
      expect(inside(address, '0.0.0.0/0,::/0'), address).toBe(false);
    }
  });

  it('refuses ranges that are not, naming the entry: host bits set, prefix too long, not an address', () => {
    expect(() => parseCidrs('10.0.0.1/8')).toThrow(/"10.0.0.1\/8" has bits set past its prefix length/);
    expect(() => parseCidrs('10.0.0.0/33')).toThrow(/longer than 32 bits/);
    expect(() => parseCidrs('2001:db8::/129')).toThrow(/longer than 128 bits/);
    expect(() => parseCidrs('10.0.0.0/8,example.com')).toThrow(/"example.com" is not an IP address/);
    expect(() => parseCidrs('10.0.0.0/')).toThrow(/no prefix length/);
    expect(() => parseCidrs('')).toThrow(/at least one/);
  });
});

describe('Authenticate and Authorize: the roles and networks of the key', () => {
  async function setUp(access: { roles?: typeof ALL_ROLES; cidrs?: string }) {
    const repo = new InMemoryWalletRepository();
    const vault = aVault();
    await repo.ensureAccount(vault.accountId, new Date());
    await repo.insertVault(vault);
    const { id, apiKey, secretHash } = generateApiKey();
    await repo.insertApiKey(anApiKey(vault, { id, secretHash, roles: access.roles ?? ALL_ROLES, allowCidrs: access.cidrs ? parseCidrs(access.cidrs) : null }));
    const refused: RefusedAuth[] = [];
    const clock = new FixedClock(new Date('2026-03-01T00:00:00Z'));
    const audit = new InMemoryAuditLog();
    return { vault, id, apiKey, refused, audit, authenticate: new Authenticate(repo, clock, { refused: (e) => refused.push(e) }), authorize: new Authorize(clock, audit) };
  }

  it('a key bound to networks: a caller elsewhere (or of unknown address) is FORBIDDEN_NETWORK, reported as foreign_network', async () => {
    const t = await setUp({ cidrs: '10.0.0.0/8' });
    await expect(t.authenticate.execute(t.apiKey, t.vault.id, '10.9.9.9')).resolves.toMatchObject({ apiKeyId: t.id });
    for (const source of ['11.0.0.1', '::ffff:11.0.0.1', 'unknown']) {
      await expect(t.authenticate.execute(t.apiKey, t.vault.id, source)).rejects.toMatchObject({ code: 'FORBIDDEN_NETWORK' });
    }
    await expect(t.authenticate.execute(t.apiKey, t.vault.id)).rejects.toMatchObject({ code: 'FORBIDDEN_NETWORK' });
    expect(t.refused.map((r) => [r.reason, r.source, r.apiKeyId])).toEqual([
      ['foreign_network', '11.0.0.1', t.id],
      ['foreign_network', '::ffff:11.0.0.1', t.id],
      ['foreign_network', 'unknown', t.id],
      ['foreign_network', 'unknown', t.id],
    ]);
  });

  it('the network is checked only for the key holder: a wrong secret from outside is still the one 401', async () => {
    const t = await setUp({ cidrs: '10.0.0.0/8' });
    const wrong = `${t.apiKey.slice(0, -4)}AAAA`;
    await expect(t.authenticate.execute(wrong, t.vault.id, '11.0.0.1')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(t.refused.map((r) => r.reason)).toEqual(['wrong_secret']);
  });

  it('the principal carries the roles; a missing one is ROLE_REQUIRED and an audit record, a held one records nothing', async () => {
    const t = await setUp({ roles: ['reader'] });
    const principal = await t.authenticate.execute(t.apiKey, t.vault.id, '127.0.0.1');
    expect(principal.roles).toEqual(['reader']);
    await t.authorize.execute(principal, 'reader', 'GET /status');
    expect(t.audit.records).toEqual([]);
    await expect(t.authorize.execute(principal, 'signer', 'POST /sign')).rejects.toMatchObject({ code: 'ROLE_REQUIRED' });
    expect(t.audit.records).toEqual([
      expect.objectContaining({
        action: 'auth.refused',
        actor: `api-key:${t.id}`,
        vaultId: t.vault.id,
        subject: t.id,
        details: { reason: 'missing role signer', operation: 'POST /sign', roles: 'reader' },
      }),
    ]);
  });
});
