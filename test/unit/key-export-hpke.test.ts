import { describe, expect, it } from 'vitest';
import { hpkeKeyExportSealer, newRecipientKeyPair, openKeyExport, recipientPublicKeyOf } from '../../adapters/system/key-export-hpke.js';

describe('key export sealed with HPKE (X25519, HKDF-SHA256, AES-256-GCM)', () => {
  it('opens with the recipient private key and refuses a relabelled, altered or misdirected file', async () => {
    const kp = await newRecipientKeyPair();
    const other = await newRecipientKeyPair();
    const secret = Buffer.alloc(32, 7);
    const env = await hpkeKeyExportSealer.seal(secret, recipientPublicKeyOf(JSON.stringify(kp.publicJwk)), { kind: 'wallet', vault: 'v1', wallet: '0xAbC' });
    expect(JSON.stringify(env)).not.toContain(secret.toString('hex'));
    expect(env.recipient).toBe(kp.fingerprint);
    const opened = await openKeyExport(JSON.stringify(env), JSON.stringify(kp.privateJwk));
    expect(opened.plaintext.equals(secret)).toBe(true);
    await expect(openKeyExport(JSON.stringify({ ...env, wallet: '0xDeF' }), JSON.stringify(kp.privateJwk))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(openKeyExport(JSON.stringify({ ...env, vault: 'v2' }), JSON.stringify(kp.privateJwk))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(openKeyExport(JSON.stringify({ ...env, kind: 'hd-seed' }), JSON.stringify(kp.privateJwk))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const flipped = Buffer.from(env.ciphertext, 'base64url');
    flipped[0]! ^= 1;
    await expect(openKeyExport(JSON.stringify({ ...env, ciphertext: flipped.toString('base64url') }), JSON.stringify(kp.privateJwk))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(openKeyExport(JSON.stringify(env), JSON.stringify(other.privateJwk))).rejects.toThrow(/sealed to recipient/);
  });

  it('takes only an X25519 public JWK as the recipient key', () => {
    expect(() => recipientPublicKeyOf('nope')).toThrow(/not JSON/);
    expect(() => recipientPublicKeyOf(JSON.stringify({ kty: 'EC', crv: 'P-256', x: 'a' }))).toThrow(/X25519 public JWK/);
    expect(() => recipientPublicKeyOf(JSON.stringify({ kty: 'OKP', crv: 'X25519', x: 'A'.repeat(43), d: 'B'.repeat(43) }))).toThrow(/private key/);
  });
});
