import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsKmsKeyStore } from '../../adapters/keystore/aws-kms/aws-kms.key-store.js';
import { deriveHdKey } from '../../adapters/keystore/shared/hd-seed.js';
import { newRecipientKeyPair, openKeyExport, recipientPublicKeyOf } from '../../adapters/system/key-export-hpke.js';
import type { ExportKeyResult, KeyExported } from '../../src/application/keys/export-key.use-case.js';
import { addressOfPrivateKey } from '../../src/domain/private-key.js';
import { createVault, type Vault } from '../../lib/index.js';
import { localFileKeyStore } from '../../lib/keystores/local-file.js';
import { postgresPersistence } from '../../lib/persistence/postgres.js';
import { sqlitePersistence } from '../../lib/persistence/sqlite.js';
import { presentWallet } from '../../adapters/http/presenters.js';
import { startFakeKms, type FakeKms } from '../support/fake-kms.server.js';
import { MovableClock } from '../support/movable-clock.js';
import { createTestDatabase, POSTGRES_AVAILABLE, type TestDatabase } from '../support/postgres.js';
import { ethersApprover, viemApprover, type Approver } from './support.js';

/*
 * Key export under quorum (docs/keystores.md#key-export), on the local-file store over SQLite and
 * PostgreSQL: a wallet's key and a vault's HD seed leave only HPKE-encrypted to a recipient's X25519 key;
 * the recipient opens them and finds the wallets' addresses; the wallets are marked exported for ever and
 * each export is audited without the key. A governed vault exports only after M signatures and the
 * delay (the clock moved), each allowed entry once; a KMS-backed wallet is refused.
 */
const dialects = [
  { dialect: 'sqlite' as const, available: true },
  { dialect: 'postgres' as const, available: POSTGRES_AVAILABLE },
];
const HOUR = 3_600_000;

const exported = (r: ExportKeyResult): KeyExported => {
  if (!('envelope' in r)) throw new Error(`expected an export, got proposal ${JSON.stringify(r)}`);
  return r;
};

describe.each(dialects)('key export on $dialect', ({ dialect, available }) => {
  let dir: string;
  let db: TestDatabase | undefined;
  let kms: FakeKms;
  const clock = new MovableClock();
  let vault: Vault;
  let kmsVault: Vault;

  beforeAll(async () => {
    if (!available) return;
    dir = await mkdtemp(path.join(tmpdir(), 'wv-key-export-'));
    if (dialect === 'postgres') db = await createTestDatabase();
    kms = await startFakeKms();
    const persistence = async () => (db ? postgresPersistence({ connectionString: db.url, poolSize: 3 }) : sqlitePersistence({ path: path.join(dir, 'vault.db') }));
    const local = () => localFileKeyStore({ keysDir: path.join(dir, 'keys'), masterKeyHex: 'ab'.repeat(32) });
    vault = await createVault({ persistence: await persistence(), keyStores: [local()], version: 'test', clock, jobs: false });
    // A second instance whose default store is a KMS (its keys never leave it), the local one beside it.
    const awsKms = new AwsKmsKeyStore({ region: 'us-east-1', endpoint: kms.url, credentials: { accessKeyId: kms.accessKeyId, secretAccessKey: kms.secretAccessKey }, maxAttempts: 1, requestTimeoutMs: 2000 });
    kmsVault = await createVault({ persistence: await persistence(), keyStores: [awsKms, local()], version: 'test', clock, jobs: false });
  });
  afterAll(async () => {
    await vault?.close();
    await kmsVault?.close();
    await kms?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const vaultWithSigner = async (v: Vault, name: string) => {
    const { id: vaultId } = await v.manageVaults.create({ name });
    const { record } = await v.manageVaults.createApiKey(vaultId, { roles: ['signer', 'admin'] });
    return { vaultId, principal: { apiKeyId: record.id, vaultId, roles: record.roles } };
  };

  it.skipIf(!available)('a frozen vault lets no key leave it: VAULT_FROZEN, nothing exported nor marked; after the unfreeze it exports', async () => {
    const { vaultId, principal } = await vaultWithSigner(vault, 'frozen');
    const wallet = await vault.createWallet.execute({ principal, name: 'held' });
    const recipient = await newRecipientKeyPair();
    const recipientPublicKey = recipientPublicKeyOf(JSON.stringify(recipient.publicJwk));
    await vault.governance.freeze(vaultId, 'incident', 'operator');
    await expect(vault.exportKeys.export({ vaultId, wallet: wallet.address, recipientPublicKey })).rejects.toMatchObject({ code: 'VAULT_FROZEN' });
    await expect(vault.exportKeys.export({ vaultId, seed: true, recipientPublicKey })).rejects.toMatchObject({ code: 'VAULT_FROZEN' });
    expect((await vault.getWallet.execute(vaultId, wallet.address)).exported).toBeNull();
    await vault.governance.unfreeze(vaultId, 'operator');
    const done = exported(await vault.exportKeys.export({ vaultId, wallet: wallet.address, recipientPublicKey }));
    expect(addressOfPrivateKey((await openKeyExport(JSON.stringify(done.envelope), JSON.stringify(recipient.privateJwk))).plaintext, 'key')).toBe(wallet.address);
  });

  it.skipIf(!available)('an ungoverned vault: a wallet key and the HD seed, opened by the recipient, the addresses found again; marked exported for ever; audited without the key', async () => {
    const { vaultId, principal } = await vaultWithSigner(vault, 'plain');
    const plain = await vault.createWallet.execute({ principal, name: 'plain' });
    const hd0 = await vault.createWallet.execute({ principal, name: 'hd-0', derivation: 'hd' });
    const hd1 = await vault.createWallet.execute({ principal, name: 'hd-1', derivation: 'hd' });
    const recipient = await newRecipientKeyPair();
    const recipientPublicKey = recipientPublicKeyOf(JSON.stringify(recipient.publicJwk));

    clock.advance(1000);
    const one = exported(await vault.exportKeys.export({ vaultId, wallet: plain.address.toLowerCase(), recipientPublicKey }));
    expect(one.envelope).toMatchObject({ kind: 'wallet', vault: vaultId, wallet: plain.address, recipient: recipient.fingerprint });
    const key = await openKeyExport(JSON.stringify(one.envelope), JSON.stringify(recipient.privateJwk));
    expect(addressOfPrivateKey(key.plaintext, 'key')).toBe(plain.address);
    const keyHex = key.plaintext.toString('hex');

    const marked = await vault.getWallet.execute(vaultId, plain.address);
    expect(marked.exported?.toISOString()).toBe(one.exported.toISOString());
    expect(presentWallet(marked).exported).toBe(one.exported.toISOString());
    expect(presentWallet(await vault.getWallet.execute(vaultId, hd0.address)).exported).toBeUndefined();

    // Again later: still the first time (exported for ever, never moved or cleared); a rename keeps it.
    clock.advance(HOUR);
    exported(await vault.exportKeys.export({ vaultId, wallet: plain.address, recipientPublicKey }));
    await vault.renameWallet.execute(principal, plain.address, 'renamed');
    expect((await vault.getWallet.execute(vaultId, plain.address)).exported?.toISOString()).toBe(one.exported.toISOString());

    // The seed: every derived wallet's key, at the paths they record; those wallets are marked, the plain one is not touched.
    const seed = exported(await vault.exportKeys.export({ vaultId, seed: true, recipientPublicKey }));
    expect(seed.envelope).toMatchObject({ kind: 'hd-seed', vault: vaultId });
    expect(seed.envelope.wallet).toBeUndefined();
    const entropy = (await openKeyExport(JSON.stringify(seed.envelope), JSON.stringify(recipient.privateJwk))).plaintext;
    for (const w of [hd0, hd1]) {
      const derived = deriveHdKey(entropy, w.derivationPath!);
      expect(addressOfPrivateKey(derived, 'key')).toBe(w.address);
      expect((await vault.getWallet.execute(vaultId, w.address)).exported?.toISOString()).toBe(seed.exported.toISOString());
    }
    // A wallet derived after the seed left is exported from its creation.
    const hd2 = await vault.createWallet.execute({ principal, name: 'hd-2', derivation: 'hd' });
    expect(hd2.exported?.toISOString()).toBe(seed.exported.toISOString());
    expect((await vault.listWallets.execute(vaultId)).page.find((w) => w.address === hd2.address)?.exported).not.toBeNull();

    // Audited: who, which wallet, the recipient's fingerprint; never the key or the seed.
    const records = (await vault.listAuditRecords.execute({ vaultId, limit: 1000 })).filter((r) => r.action === 'key.exported');
    expect(records.map((r) => r.details.kind)).toEqual(['wallet', 'wallet', 'hd-seed']);
    expect(records[0]).toMatchObject({ actor: 'operator', subject: plain.address, details: { walletId: plain.id, recipient: recipient.fingerprint, authorization: null } });
    const text = JSON.stringify(records);
    expect(text).toContain(recipient.fingerprint);
    expect(text).toContain(plain.address);
    expect(text).not.toContain(keyHex);
    expect(text).not.toContain(entropy.toString('hex'));
    expect(JSON.stringify(one.envelope)).not.toContain(keyHex);
  });

  it.skipIf(!available)('a governed vault: refused without a proposal (the ask proposes it); done after M signatures and the delay, once per allowed entry', async () => {
    const approvers: Approver[] = [ethersApprover(), viemApprover(), ethersApprover()];
    const { vaultId, principal } = await vaultWithSigner(vault, 'governed');
    const wallet = await vault.createWallet.execute({ principal, name: 'cold' });
    await vault.governance.set(vaultId, { required: 2, approvers: approvers.map((a) => a.address), delay: '1h' }, 'operator');
    const recipient = await newRecipientKeyPair();
    const recipientPublicKey = recipientPublicKeyOf(JSON.stringify(recipient.publicJwk));

    const asked = await vault.exportKeys.export({ vaultId, wallet: wallet.address, recipientPublicKey });
    if (!('proposal' in asked)) throw new Error('a governed vault exported without a proposal');
    expect((await vault.getWallet.execute(vaultId, wallet.address)).exported).toBeNull();
    const view = await vault.governance.get(vaultId, asked.proposal.id);
    expect(view.state.exports).toEqual([{ id: asked.proposal.entry, kind: 'wallet', wallet: wallet.address, recipientKey: recipient.publicJwk.x, recipient: recipient.fingerprint }]);
    expect(view.diff.exports).toMatchObject({ added: [asked.proposal.entry] });

    // Asked again while it waits: refused, naming the proposal; no second proposal.
    await expect(vault.exportKeys.export({ vaultId, wallet: wallet.address, recipientPublicKey })).rejects.toMatchObject({ code: 'EXPORT_NOT_AUTHORIZED', message: expect.stringContaining(asked.proposal.id) });
    await vault.governance.vote(vaultId, asked.proposal.id, 'approve', await approvers[0]!.sign(view.typedData), 'operator');
    await expect(vault.exportKeys.export({ vaultId, wallet: wallet.address, recipientPublicKey })).rejects.toMatchObject({ code: 'EXPORT_NOT_AUTHORIZED', message: expect.stringContaining('1 of 2') });
    await vault.governance.vote(vaultId, asked.proposal.id, 'approve', await approvers[1]!.sign(view.typedData), 'operator');
    // M signatures, the delay not yet passed.
    clock.advance(HOUR - 1000);
    await expect(vault.exportKeys.export({ vaultId, wallet: wallet.address, recipientPublicKey })).rejects.toMatchObject({ code: 'EXPORT_NOT_AUTHORIZED' });
    // Another recipient key is not what the approvers signed: it is a proposal of its own.
    const other = await newRecipientKeyPair();
    const elsewhere = await vault.exportKeys.export({ vaultId, wallet: wallet.address, recipientPublicKey: recipientPublicKeyOf(JSON.stringify(other.publicJwk)) });
    expect('proposal' in elsewhere).toBe(true);

    clock.advance(2000);
    const done = exported(await vault.exportKeys.export({ vaultId, wallet: wallet.address, recipientPublicKey }));
    expect(done.authorization).toBe(asked.proposal.entry);
    const opened = await openKeyExport(JSON.stringify(done.envelope), JSON.stringify(recipient.privateJwk));
    expect(addressOfPrivateKey(opened.plaintext, 'key')).toBe(wallet.address);
    expect((await vault.getWallet.execute(vaultId, wallet.address)).exported?.toISOString()).toBe(done.exported.toISOString());
    expect((await vault.governance.get(vaultId, asked.proposal.id)).status).toBe('applied');

    // The entry is carried out: the same export again is one more proposal, not one more key.
    const again = await vault.exportKeys.export({ vaultId, wallet: wallet.address, recipientPublicKey });
    expect('proposal' in again).toBe(true);
  });

  it.skipIf(!available)('a KMS-backed wallet, and the seed of a store that keeps none, are refused with KEYSTORE_EXPORT_UNSUPPORTED, nothing marked', async () => {
    const { vaultId, principal } = await vaultWithSigner(kmsVault, 'kms');
    const wallet = await kmsVault.createWallet.execute({ principal, name: 'in-kms' });
    expect(wallet.keyStore).toBe('aws-kms');
    const recipient = await newRecipientKeyPair();
    const recipientPublicKey = recipientPublicKeyOf(JSON.stringify(recipient.publicJwk));
    await expect(kmsVault.exportKeys.export({ vaultId, wallet: wallet.address, recipientPublicKey })).rejects.toMatchObject({ code: 'KEYSTORE_EXPORT_UNSUPPORTED', message: expect.stringContaining('aws-kms') });
    await expect(kmsVault.exportKeys.export({ vaultId, seed: true, recipientPublicKey })).rejects.toMatchObject({ code: 'KEYSTORE_EXPORT_UNSUPPORTED' });
    expect((await kmsVault.getWallet.execute(vaultId, wallet.address)).exported).toBeNull();
  });
});
