import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRecipientKeyPair, openKeyExport, recipientPublicKeyOf } from '../../adapters/system/key-export-hpke.js';
import type { ExportKeyResult, KeyExported } from '../../src/application/keys/export-key.use-case.js';
import type { Principal } from '../../src/application/access/principal.js';
import { addressOfPrivateKey } from '../../src/domain/private-key.js';
import type { Vault } from '../../lib/index.js';
import { MovableClock } from '../support/movable-clock.js';
import { POSTGRES_AVAILABLE } from '../support/postgres.js';
import { ethersApprover, openStore, viemApprover, type Approver, type Dialect, type Store } from './support.js';

const DIALECTS: Dialect[] = POSTGRES_AVAILABLE ? ['sqlite', 'postgres'] : ['sqlite'];
const HOUR = 3_600_000;

const exported = (r: ExportKeyResult): KeyExported => {
  if (!('envelope' in r)) throw new Error(`expected an export, got proposal ${JSON.stringify(r)}`);
  return r;
};

/*
 * Rows of the HD index and of key exports, replayed by plain SQL as a database writer (docs/security.md,
 * "What a database writer can change") would: the writer has the database, neither the master key nor an
 * approver's key.
 */
describe.each(DIALECTS)('a database writer and the HD index and key exports on %s', (dialect) => {
  let store: Store;
  let vault: Vault;
  const clock = new MovableClock();
  let vaultId: string;
  let principal: Principal;

  beforeAll(async () => {
    store = await openStore(dialect);
    vault = await store.open({ clock });
    ({ id: vaultId } = await vault.manageVaults.create({ name: 'treasury' }));
    const { record } = await vault.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    principal = { apiKeyId: record.id, vaultId, roles: record.roles };
  });
  afterAll(async () => {
    await store?.close();
  });

  it('attack: the HD index lowered by SQL: the wallet derived at a used index is refused (CONFLICT), recorded as records.missing; the wallet holding that key keeps its key and signs', async () => {
    const hd0 = await vault.createWallet.execute({ principal, name: 'hd-0', derivation: 'hd' });
    const hd1 = await vault.createWallet.execute({ principal, name: 'hd-1', derivation: 'hd' });
    await store.sql('UPDATE hd_indexes SET next_index = 0 WHERE vault_id = $1', [vaultId]);

    await expect(vault.createWallet.execute({ principal, name: 'fresh', derivation: 'hd' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(new RegExp(`index 0 of this vault's HD seed is already the key of wallet ${hd0.address}.*lowered in the database`)),
    });
    // No second row shares the key, and the key file of the wallet that holds it is not destroyed with the refused one.
    const rows = (await store.sql('SELECT address FROM wallets WHERE vault_id = $1', [vaultId])) as { address: string }[];
    expect(rows.map((r) => r.address).sort()).toEqual([hd0.address, hd1.address].sort());
    await vault.managePolicies.set(vaultId, { messages: true });
    await expect(vault.signMessage.execute({ principal, address: hd0.address, message: 'still mine' })).resolves.toBeDefined();
    const records = (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'records.missing');
    expect(records).toEqual([expect.objectContaining({ subject: hd0.address, details: expect.objectContaining({ table: 'hd_indexes', index: '0', wallet: hd0.address }) })]);

    // Each refusal moved the index on: once past the used ones, the next wallet is a fresh key at index 2.
    await expect(vault.createWallet.execute({ principal, name: 'fresh', derivation: 'hd' })).rejects.toMatchObject({ code: 'CONFLICT' });
    const fresh = await vault.createWallet.execute({ principal, name: 'fresh', derivation: 'hd' });
    expect(fresh.derivationPath).toBe("m/44'/60'/0'/0/2");
    expect([hd0.address, hd1.address]).not.toContain(fresh.address);
  });

  it("residual: wallets.exported cleared by SQL: reads show the wallet as never exported; the key.exported record stays in the audit trail", async () => {
    const w = await vault.createWallet.execute({ principal, name: 'left' });
    const recipient = await newRecipientKeyPair();
    const done = exported(await vault.exportKeys.export({ vaultId, wallet: w.address, recipientPublicKey: recipientPublicKeyOf(JSON.stringify(recipient.publicJwk)) }));
    await store.sql('UPDATE wallets SET exported = NULL WHERE address = $1', [w.address]);
    expect((await vault.getWallet.execute(vaultId, w.address)).exported).toBeNull();
    const trail = (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'key.exported' && r.subject === w.address);
    expect(trail).toEqual([expect.objectContaining({ at: done.exported, details: expect.objectContaining({ recipient: recipient.fingerprint }) })]);
  });

  it('attack: key_exports rows and a governed export: a row inserted with the entry uses it up (nothing leaves, the ask is a new proposal); the row deleted lets the entry export once more, only to the recipient the approvers signed, recorded again', async () => {
    const approvers: Approver[] = [ethersApprover(), viemApprover()];
    const { id: governedId } = await vault.manageVaults.create({ name: 'governed' });
    const { record } = await vault.manageVaults.createApiKey(governedId, { roles: ['signer', 'admin'] });
    const wallet = await vault.createWallet.execute({ principal: { apiKeyId: record.id, vaultId: governedId, roles: record.roles }, name: 'cold' });
    await vault.governance.set(governedId, { required: 2, approvers: approvers.map((a) => a.address), delay: '1h' }, 'operator');
    const recipient = await newRecipientKeyPair();
    const recipientPublicKey = recipientPublicKeyOf(JSON.stringify(recipient.publicJwk));
    const approved = async () => {
      const asked = await vault.exportKeys.export({ vaultId: governedId, wallet: wallet.address, recipientPublicKey });
      if (!('proposal' in asked)) throw new Error('a governed vault exported without a proposal');
      const view = await vault.governance.get(governedId, asked.proposal.id);
      for (const a of approvers) await vault.governance.vote(governedId, asked.proposal.id, 'approve', await a.sign(view.typedData), 'operator');
      clock.advance(HOUR + 1000);
      return asked.proposal.entry;
    };

    // Used up by SQL before the operator carries it out: nothing leaves, nothing is marked, the ask proposes again.
    const entry = await approved();
    await store.sql('INSERT INTO key_exports (id, vault_id, kind, wallet_id, recipient, authorization_id, actor, created) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
      'writer-row',
      governedId,
      'wallet',
      wallet.id,
      recipient.fingerprint,
      entry,
      'operator',
      dialect === 'postgres' ? clock.now() : clock.now().getTime(),
    ]);
    const refused = await vault.exportKeys.export({ vaultId: governedId, wallet: wallet.address, recipientPublicKey });
    expect('proposal' in refused).toBe(true);
    expect((await vault.getWallet.execute(governedId, wallet.address)).exported).toBeNull();

    // The row deleted: the entry is carried out (once), to the key the approvers signed.
    await store.sql('DELETE FROM key_exports WHERE id = $1', ['writer-row']);
    const first = exported(await vault.exportKeys.export({ vaultId: governedId, wallet: wallet.address, recipientPublicKey }));
    expect(first.authorization).toBe(entry);
    // Residual: its row deleted again, the same entry exports again, to that same recipient only (who holds the key already).
    await store.sql('DELETE FROM key_exports WHERE authorization_id = $1', [entry]);
    const second = exported(await vault.exportKeys.export({ vaultId: governedId, wallet: wallet.address, recipientPublicKey }));
    expect(second.authorization).toBe(entry);
    expect(addressOfPrivateKey((await openKeyExport(JSON.stringify(second.envelope), JSON.stringify(recipient.privateJwk))).plaintext, 'key')).toBe(wallet.address);
    const other = await newRecipientKeyPair();
    expect('proposal' in (await vault.exportKeys.export({ vaultId: governedId, wallet: wallet.address, recipientPublicKey: recipientPublicKeyOf(JSON.stringify(other.publicJwk)) }))).toBe(true);
    const records = (await vault.listAuditRecords.execute({ vaultId: governedId, limit: 1000 })).filter((r) => r.action === 'key.exported');
    expect(records.map((r) => [r.details.authorization, r.details.recipient])).toEqual([
      [entry, recipient.fingerprint],
      [entry, recipient.fingerprint],
    ]);
  });
});
