import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJson } from '../support/cli.js';
import { client } from '../support/http-client.js';
import { freePort, signInAs, startTestIdentityProvider, type TestIdentityProvider } from '../support/test-identity-provider.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const ADMIN = '/api/v1/admin';
const POLICY = { version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }] };
const HOUR_MS = 3_600_000;

/*
 * Operators signing in through the company's OpenID Connect provider (docs/operators.md, "Sign-in with
 * OpenID Connect"), against a real provider run by the test (oidc-provider): the browser's code flow with
 * PKCE at the vault, the ID token it yields as the admin API's Bearer credential, each operator within the
 * roles its row gives, and the tokens the vault must refuse (expired, forged, another's, no operator's).
 */
describe('operator sign-in with OpenID Connect', () => {
  let idp: TestIdentityProvider;
  let s: TestServer;
  let vaultId: string;
  let bobCredential: string;
  const signIn = (login: string) => signInAs(`${s.url}${ADMIN}/sign-in`, login);

  beforeAll(async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    idp = await startTestIdentityProvider({ redirectUri: `${publicUrl}${ADMIN}/sign-in/callback` });
    s = await startTestServer({
      env: { PORT: String(port), VAULT_PUBLIC_URL: publicUrl, VAULT_OIDC_ISSUER: idp.issuer, VAULT_OIDC_CLIENT_ID: idp.clientId, VAULT_OIDC_CLIENT_SECRET: idp.clientSecret },
    });
    vaultId = (await s.server.vault.manageVaults.create({ name: 'payments' })).id;
    // The provider says who signs in; the operator's row, made beforehand by the local operator, what it may do.
    await s.server.vault.manageOperators.create({ name: 'alice@example.com', roles: 'vault-admin' });
    await s.server.vault.manageOperators.create({ name: 'carol@example.com', roles: 'auditor' });
    await s.server.vault.manageOperators.create({ name: 'erin@example.com', roles: 'auditor' });
    bobCredential = (await s.server.vault.manageOperators.create({ name: 'bob', roles: 'key-admin' })).credential;
  });
  afterAll(async () => {
    await s?.stop();
    await idp?.close();
  });

  it('two operators change a policy and create a key (one signed in, one by credential); a third signs in and is refused outside its role; audit list names each', async () => {
    const alice = await signIn('alice');
    expect(alice.status).toBe(200);
    expect(alice.body.data).toMatchObject({ operator: { name: 'alice@example.com', roles: ['vault-admin'], vaults: null }, tokenType: 'Bearer' });
    expect(alice.headers.get('cache-control')).toBe('no-store');
    // The cookie that kept state, nonce and verifier is spent.
    expect(alice.headers.getSetCookie().join()).toMatch(/^wallet_vault_oidc=; HttpOnly; SameSite=Lax; Path=\/api\/v1\/admin\/sign-in; Max-Age=0$/);
    const aliceToken = alice.body.data.token as string;
    expect(Date.parse(alice.body.data.expires)).toBeGreaterThan(s.clock.now().getTime());

    const policy = await client(s.url, aliceToken).put(`${ADMIN}/vaults/${vaultId}/policy`, POLICY);
    expect(policy.status).toBe(200);
    const key = await client(s.url, bobCredential).post(`${ADMIN}/vaults/${vaultId}/api-keys`, { roles: ['reader'], label: 'dashboard' });
    expect(key.status).toBe(200);

    const carol = await signIn('carol');
    expect(carol.status).toBe(200);
    const refused = await client(s.url, carol.body.data.token).post(`${ADMIN}/vaults/${vaultId}/api-keys`, { roles: ['reader'] });
    expect([refused.status, refused.body.code, refused.body.error]).toEqual([
      403,
      'ROLE_REQUIRED',
      'operator carol@example.com (roles auditor) may not do this (api-keys.change): it needs the role key-admin',
    ]);
    // What its role allows, it does.
    expect((await client(s.url, carol.body.data.token).get(`${ADMIN}/vaults/${vaultId}/policy`)).status).toBe(200);

    const trail = (await s.server.vault.listAuditRecords.execute({ limit: 1000 })).map((r) => [r.action, r.actor]);
    expect(trail).toEqual(
      expect.arrayContaining([
        ['operator.signed-in', 'operator:alice@example.com'],
        ['policy.changed', 'operator:alice@example.com'],
        ['api-key.created', 'operator:bob'],
        ['operator.signed-in', 'operator:carol@example.com'],
        ['auth.refused', 'operator:carol@example.com'],
      ]),
    );
    const signedIn = (await s.server.vault.listAuditRecords.execute({ limit: 1000 })).find((r) => r.action === 'operator.signed-in')!;
    expect(signedIn.details).toEqual({ issuer: idp.issuer, subject: 'subject-of-alice' });
    // The command line reads the same trail.
    const listed = await cliJson<{ action: string; actor: string }[]>(['audit', 'list', '--limit', '1000'], { VAULT_DATA_DIR: s.dataDir });
    const actors = listed.map((r) => `${r.action} ${r.actor}`);
    expect(actors).toEqual(expect.arrayContaining(['policy.changed operator:alice@example.com', 'api-key.created operator:bob', 'auth.refused operator:carol@example.com']));
  });

  it('a forged token is 401: a payload changed under its signature, no signature, another algorithm', async () => {
    const carol = (await signIn('carol')).body.data.token as string;
    const [header, payload, signature] = carol.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const asAlice = Buffer.from(JSON.stringify({ ...claims, email: 'alice@example.com' })).toString('base64url');
    const forged = await client(s.url, `${header}.${asAlice}.${signature}`).put(`${ADMIN}/vaults/${vaultId}/policy`, POLICY);
    expect([forged.status, forged.body.code, forged.body.error]).toEqual([401, 'UNAUTHENTICATED', `operator token refused: its signature is not one of ${idp.issuer}'s keys`]);
    expect(forged.headers.get('www-authenticate')).toBe('Bearer realm="wallet-vault", error="invalid_token"');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${asAlice}.x`;
    expect((await client(s.url, none).get(`${ADMIN}/vaults`)).status).toBe(401);
    const hmac = `${Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')}.${asAlice}.${signature}`;
    const symmetric = await client(s.url, hmac).get(`${ADMIN}/vaults`);
    expect([symmetric.status, symmetric.body.error]).toEqual([401, expect.stringMatching(/^operator token refused: its algorithm is not one the vault accepts/)]);
    // Nothing was changed under alice's name by the forgery.
    const changes = (await s.server.vault.listAuditRecords.execute({ limit: 1000 })).filter((r) => r.action === 'policy.changed');
    expect(changes.length).toBe(1);
  });

  it("an expired token is 401 naming its expiry, by the vault's clock", async () => {
    const erin = (await signIn('erin')).body.data;
    expect((await client(s.url, erin.token).get(`${ADMIN}/vaults`)).status).toBe(200);
    s.clock.advance(2 * HOUR_MS);
    try {
      const expired = await client(s.url, erin.token).get(`${ADMIN}/vaults`);
      expect([expired.status, expired.body.code, expired.body.error]).toEqual([401, 'UNAUTHENTICATED', `operator token refused: it expired at ${erin.expires}; sign in again`]);
    } finally {
      s.clock.advance(-2 * HOUR_MS);
    }
  });

  it('a person the provider knows but no operator is, and a revoked operator, are refused', async () => {
    const dave = await signIn('dave');
    expect([dave.status, dave.body.code, dave.body.error]).toEqual([
      401,
      'UNAUTHENTICATED',
      'operator token refused: no operator is named "dave@example.com" (its email claim); the local operator makes one: wallet-vault operators create --name dave@example.com --roles …',
    ]);
    const erin = (await signIn('erin')).body.data.token as string;
    await s.server.vault.manageOperators.revoke('erin@example.com');
    const revoked = await client(s.url, erin).get(`${ADMIN}/vaults`);
    expect([revoked.status, revoked.body.error]).toEqual([401, 'operator token refused: operator erin@example.com is revoked']);
  });

  it('a way back without the sign-in cookie, or with a state that is not its own, is 401', async () => {
    const bare = await client(s.url).get(`${ADMIN}/sign-in/callback?code=x&state=y`);
    expect([bare.status, bare.body.code]).toEqual([401, 'UNAUTHENTICATED']);
    expect(bare.body.error).toMatch(/^operator sign-in: no sign-in is under way in this browser/);
    const cookie = `wallet_vault_oidc=${Buffer.from(JSON.stringify(['state-a', 'nonce-a', 'v'.repeat(43)])).toString('base64url')}`;
    const mismatched = await client(s.url).get(`${ADMIN}/sign-in/callback?code=x&state=state-b`, { cookie });
    expect([mismatched.status, mismatched.body.code]).toEqual([401, 'UNAUTHENTICATED']);
  });
});

describe('operator sign-in without VAULT_OIDC_ISSUER', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('the sign-in is 503 OIDC_UNAVAILABLE naming the setting; a JWT is no operator credential', async () => {
    const start = await client(s.url).get(`${ADMIN}/sign-in`);
    expect([start.status, start.body.code, start.body.error]).toEqual([
      503,
      'OIDC_UNAVAILABLE',
      'operator sign-in with OpenID Connect is not configured: set VAULT_OIDC_ISSUER and VAULT_OIDC_CLIENT_ID (docs/operators.md)',
    ]);
    const jwt = await client(s.url, 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln').get(`${ADMIN}/vaults`);
    expect([jwt.status, jwt.body.error]).toEqual([401, 'malformed operator credential']);
  });
});
