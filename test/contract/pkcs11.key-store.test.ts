import { randomBytes } from 'node:crypto';
import pkcs11js from 'pkcs11js';
import { describe, expect, it } from 'vitest';
import { Pkcs11KeyStore } from '../../adapters/keystore/pkcs11/pkcs11.key-store.js';
import { ErrorCode } from '../../src/domain/errors.js';
import { SOFTHSM_MODULE, createSoftHsmToken } from '../support/softhsm.js';
import { describeKeyStoreContract } from 'wallet-vault/testing';

if (!SOFTHSM_MODULE) console.warn('SKIPPED: pkcs11 against SoftHSM2 was not run: SoftHSM2 is not installed (apt-get install softhsm2)');

describe.skipIf(!SOFTHSM_MODULE)(SOFTHSM_MODULE ? 'pkcs11 against SoftHSM2' : 'SKIPPED: pkcs11 against SoftHSM2: not installed', () => {
  let n = 0;
  describeKeyStoreContract('pkcs11 (SoftHSM2)', async () => {
    const store = new Pkcs11KeyStore(createSoftHsmToken(`contract-${++n}`));
    await store.open();
    return { store, cleanup: async () => undefined };
  });

  it('generates keys on the token: sensitive, private, never extractable, on secp256k1', async () => {
    const token = createSoftHsmToken('attributes');
    const store = new Pkcs11KeyStore(token);
    const key = await store.create();
    // Inspect the object through a separate PKCS#11 handle, as an auditor would.
    const lib = new pkcs11js.PKCS11();
    lib.load(token.modulePath);
    try {
      lib.C_Initialize();
    } catch {
      // already initialised in this process by the store
    }
    const slot = lib.C_GetSlotList(true).find((s) => lib.C_GetTokenInfo(s).label.trim() === token.tokenLabel)!;
    const session = lib.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION);
    lib.C_FindObjectsInit(session, [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
      { type: pkcs11js.CKA_ID, value: Buffer.from(key.keyRef, 'hex') },
    ]);
    const handle = lib.C_FindObjects(session);
    lib.C_FindObjectsFinal(session);
    expect(handle).not.toBeNull();
    const attrs = lib.C_GetAttributeValue(session, handle!, [
      { type: pkcs11js.CKA_SENSITIVE },
      { type: pkcs11js.CKA_EXTRACTABLE },
      { type: pkcs11js.CKA_PRIVATE },
      { type: pkcs11js.CKA_TOKEN },
      { type: pkcs11js.CKA_EC_PARAMS },
    ]);
    expect(attrs.map((a) => (a.value as Buffer).toString('hex'))).toEqual(['01', '00', '01', '01', '06052b8104000a']);
    expect(() => lib.C_GetAttributeValue(session, handle!, [{ type: pkcs11js.CKA_VALUE }])).toThrow(/CKR_ATTRIBUTE_SENSITIVE/);
    lib.C_CloseSession(session);
    await store.close();
  });

  it('keys survive a new store instance (a restart) and a destroyed key is gone from the token', async () => {
    const token = createSoftHsmToken('restart');
    const first = new Pkcs11KeyStore(token);
    const key = await first.create();
    await first.close();
    const second = new Pkcs11KeyStore(token);
    await expect(second.sign(key.keyRef, randomBytes(32))).resolves.toHaveProperty('v');
    await second.destroy(key.keyRef);
    expect(await second.listKeyRefs(new Date(Date.now() + 60_000))).not.toContain(key.keyRef);
    await second.close();
  });

  it('signs concurrently across the session pool', async () => {
    const store = new Pkcs11KeyStore({ ...createSoftHsmToken('pool'), sessions: 2 });
    const key = await store.create();
    const sigs = await Promise.all(Array.from({ length: 20 }, () => store.sign(key.keyRef, randomBytes(32))));
    expect(sigs).toHaveLength(20);
    await store.close();
  });

  it('a wrong PIN or an unknown token fails clearly', async () => {
    const token = createSoftHsmToken('pin');
    await expect(new Pkcs11KeyStore({ ...token, pin: '999999' }).ping()).rejects.toMatchObject({
      code: ErrorCode.KEYSTORE_UNAVAILABLE,
      message: expect.stringMatching(/CKR_PIN_INCORRECT/),
    });
    await expect(new Pkcs11KeyStore({ ...token, tokenLabel: 'missing' }).ping()).rejects.toThrow(/no token labelled "missing"/);
  });
});
