import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/*
 * A real OpenID Connect provider for the tests (oidc-provider, the certified implementation), on loopback:
 * discovery, JWKS, the authorization endpoint with its development login and consent pages, the token
 * endpoint. Each account's id is its login; its email is `<login>@example.com`, verified.
 */

export interface TestIdentityProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  close(): Promise<void>;
}

/** A port free on loopback now (the vault's public URL and the provider's issuer are needed before either listens). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export async function startTestIdentityProvider(options: { redirectUri: string }): Promise<TestIdentityProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'wallet-vault';
  const clientSecret = 'test-client-secret-0123456789abcdef';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    async findAccount(_ctx: unknown, id: string) {
      return { accountId: id, claims: async () => ({ sub: `subject-of-${id}`, email: `${id}@example.com`, email_verified: true }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // The email in the ID token itself, not only at the userinfo endpoint: the vault reads the ID token.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: ['test-identity-provider-cookie-key'] },
    features: { devInteractions: { enabled: true } },
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    clientId,
    clientSecret,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A browser's sign-in at the vault: `GET <start>`, the redirects followed by hand (a cookie jar per
 * origin), the provider's login form posted with `login`, its consent form confirmed, until the vault's
 * callback answers; that answer.
 */
export async function signInAs(start: string, login: string): Promise<{ status: number; body: any; headers: Headers }> {
  const jars = new Map<string, Map<string, string>>();
  const jarOf = (url: string) => {
    const origin = new URL(url).origin;
    let jar = jars.get(origin);
    if (jar === undefined) jars.set(origin, (jar = new Map()));
    return jar;
  };
  let url = start;
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 20; step++) {
    const jar = jarOf(url);
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { ...(jar.size > 0 ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {}), ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      ...(body === undefined ? {} : { body }),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim()];
      if (value === '' || /max-age=0/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      url = new URL(location, url).href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const text = await response.text();
    const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/.exec(text);
    if (response.status === 200 && form !== null && !url.startsWith(start)) {
      const prompt = /name="prompt" value="(\w+)"/.exec(text)?.[1];
      url = new URL(form[1]!, url).href;
      method = 'POST';
      body = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt: prompt ?? 'consent' }).toString();
      continue;
    }
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: the page as it is.
    }
    return { status: response.status, body: parsed, headers: response.headers };
  }
  throw new Error(`sign-in of ${login}: more than 20 steps`);
}
