import { describe, expect, it } from 'vitest';
import { VAULT_ERROR_CODES, VaultClient, VaultError, isVaultErrorCode, type VaultErrorCode } from '../../client/index.js';
import { APPROVAL_PENDING } from '../../src/application/signing/json-rpc.use-case.js';
import { ErrorCode } from '../../src/domain/errors.js';

/** True only when A and B are the same type (neither wider nor narrower). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

describe("the client's error codes", () => {
  it("are the server's ErrorCode values and the JSON-RPC endpoint's APPROVAL_PENDING, no more and no fewer (a code the server gains fails here until client/error-codes.ts lists it)", () => {
    expect([...VAULT_ERROR_CODES].sort()).toEqual([...Object.values(ErrorCode), APPROVAL_PENDING].sort());
    expect(new Set(VAULT_ERROR_CODES).size).toBe(VAULT_ERROR_CODES.length);
    // The same check for the compiler (npx tsc): the union is exactly the server's.
    const same: Same<VaultErrorCode, ErrorCode | typeof APPROVAL_PENDING> = true;
    expect(same).toBe(true);
  });

  it('recognise only those values', () => {
    expect(isVaultErrorCode('WALLET_NOT_FOUND')).toBe(true);
    expect(isVaultErrorCode('wallet_not_found')).toBe(false);
    expect(isVaultErrorCode(404)).toBe(false);
  });

  it('give VaultError.code from the answer, and leave it undefined for a code this client does not know or an answer without the envelope', async () => {
    const answering = (status: number, body: string) =>
      new VaultClient({
        baseUrl: 'http://vault.test',
        vaultId: 'v',
        apiKey: 'k',
        retries: 0,
        fetch: (async () => new Response(body, { status, headers: { 'content-type': 'application/json' } })) as typeof fetch,
      });
    const failure = (client: VaultClient) => client.status().catch((e: unknown) => e as VaultError);
    expect(await failure(answering(403, JSON.stringify({ success: false, error: 'policy: sender 0x1 is not allowed', code: 'POLICY_DENIED' })))).toMatchObject({
      name: 'VaultError',
      status: 403,
      code: 'POLICY_DENIED',
      message: 'policy: sender 0x1 is not allowed',
    });
    expect(await failure(answering(418, JSON.stringify({ success: false, error: 'teapot', code: 'TEAPOT' })))).toMatchObject({ status: 418, code: undefined, message: 'teapot' });
    expect(await failure(answering(502, JSON.stringify({ message: 'bad gateway' })))).toMatchObject({ status: 502, code: undefined });
  });
});
