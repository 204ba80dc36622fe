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

  // An imported key (C_CreateObject, issue 37) has the same usages; the token says it was outside once.
  it.each(['create', 'importKey'] as const)('%s: the key pair on the token has every usage set: the private key signs only and cannot be read, copied or changed; the public key verifies only', async (how) => {
    const token = createSoftHsmToken(`attributes-${how}`);
    const store = new Pkcs11KeyStore(token);
    const generated = how === 'create';
    const key = generated ? await store.create() : await store.importKey(Buffer.from('0c'.repeat(32), 'hex'));
    // Inspect the objects through a separate PKCS#11 handle, as an auditor would.
    const lib = new pkcs11js.PKCS11();
    lib.load(token.modulePath);
    try {
      lib.C_Initialize();
    } catch {
      // already initialised in this process by the store
    }
    const slot = lib.C_GetSlotList(true).find((s) => lib.C_GetTokenInfo(s).label.trim() === token.tokenLabel)!;
    const session = lib.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
    try {
      lib.C_Login(session, pkcs11js.CKU_USER, token.pin);
    } catch (error) {
      // The login is per process: the store's session already holds it.
      if (!/CKR_USER_ALREADY_LOGGED_IN/.test(String(error))) throw error;
    }
    const find = (cls: number) => {
      lib.C_FindObjectsInit(session, [
        { type: pkcs11js.CKA_CLASS, value: cls },
        { type: pkcs11js.CKA_ID, value: Buffer.from(key.keyRef, 'hex') },
      ]);
      const handle = lib.C_FindObjects(session);
      lib.C_FindObjectsFinal(session);
      expect(handle).not.toBeNull();
      return handle!;
    };
    /** Each named attribute as the token reports it: true/false for booleans, hex otherwise. */
    const read = (handle: Buffer, names: (keyof typeof pkcs11js & `CKA_${string}`)[]) =>
      Object.fromEntries(
        lib.C_GetAttributeValue(session, handle, names.map((n) => ({ type: pkcs11js[n] as number }))).map((a, i) => {
          const hex = (a.value as Buffer).toString('hex');
          return [names[i], hex === '01' ? true : hex === '00' ? false : hex];
        }),
      );
    const privateKey = find(pkcs11js.CKO_PRIVATE_KEY);
    expect(
      read(privateKey, [
        'CKA_TOKEN', 'CKA_PRIVATE', 'CKA_SIGN', 'CKA_SIGN_RECOVER', 'CKA_DECRYPT', 'CKA_UNWRAP', 'CKA_DERIVE',
        'CKA_SENSITIVE', 'CKA_ALWAYS_SENSITIVE', 'CKA_EXTRACTABLE', 'CKA_NEVER_EXTRACTABLE', 'CKA_COPYABLE', 'CKA_MODIFIABLE', 'CKA_EC_PARAMS', 'CKA_LOCAL',
      ]),
    ).toEqual({
      CKA_TOKEN: true,
      CKA_PRIVATE: true,
      CKA_SIGN: true,
      CKA_SIGN_RECOVER: false,
      CKA_DECRYPT: false,
      CKA_UNWRAP: false,
      CKA_DERIVE: false,
      CKA_SENSITIVE: true,
      CKA_ALWAYS_SENSITIVE: generated,
      CKA_EXTRACTABLE: false,
      CKA_NEVER_EXTRACTABLE: generated,
      CKA_COPYABLE: false,
      CKA_MODIFIABLE: false,
      CKA_EC_PARAMS: '06052b8104000a',
      CKA_LOCAL: generated,
    });
    expect(() => lib.C_GetAttributeValue(session, privateKey, [{ type: pkcs11js.CKA_VALUE }])).toThrow(/CKR_ATTRIBUTE_SENSITIVE/);
    // Not modifiable: even the PIN holder cannot turn derive on afterwards. CKR_ACTION_PROHIBITED is
    // 0x1B, which pkcs11js (PKCS#11 2.30 names) reports as CKR_VENDOR_DEFINED:27.
    expect(() => lib.C_SetAttributeValue(session, privateKey, [{ type: pkcs11js.CKA_DERIVE, value: true }])).toThrow(
      /CKR_ACTION_PROHIBITED|CKR_VENDOR_DEFINED:27$|CKR_ATTRIBUTE_READ_ONLY/,
    );
    expect(read(find(pkcs11js.CKO_PUBLIC_KEY), ['CKA_VERIFY', 'CKA_VERIFY_RECOVER', 'CKA_ENCRYPT', 'CKA_WRAP', 'CKA_DERIVE', 'CKA_MODIFIABLE'])).toEqual({
      CKA_VERIFY: true,
      CKA_VERIFY_RECOVER: false,
      CKA_ENCRYPT: false,
      CKA_WRAP: false,
      CKA_DERIVE: false,
      CKA_MODIFIABLE: false,
    });
    lib.C_CloseSession(session);
    // The key still signs, and the purge can still destroy it.
    await expect(store.sign(key.keyRef, randomBytes(32))).resolves.toHaveProperty('v');
    await store.destroy(key.keyRef);
    expect(await store.listKeyRefs(new Date(Date.now() + 60_000))).not.toContain(key.keyRef);
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
