import type { IncomingHttpHeaders } from 'node:http';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { withoutTrailingSlashes } from '../../src/domain/url-path.js';
import type { PendingSignIn } from '../../src/ports/operator-identity.port.js';
import { ADMIN_PREFIX } from './admin-routes.js';
import type { HttpDeps } from './http-deps.js';
import { jsonReply, type Reply } from './routes.js';
import type { ServiceRoute } from './service-route.js';

/*
 * The operators' browser sign-in through the company's OpenID Connect provider (docs/operators.md, "Sign-in
 * with OpenID Connect"): the authorization code flow with PKCE. `GET …/sign-in` sends the browser to the
 * provider with a fresh state, nonce and code verifier, kept in an HttpOnly cookie scoped to these two
 * paths (never stored by the vault, so any instance takes the way back); `GET …/sign-in/callback` redeems
 * the code with the client's secret and answers the ID token: the operator's Bearer credential for the
 * admin API until it expires.
 */

export const SIGN_IN_PATH = `${ADMIN_PREFIX}/sign-in`;
export const SIGN_IN_CALLBACK_PATH = `${SIGN_IN_PATH}/callback`;
const COOKIE = 'wallet_vault_oidc';
/** Long enough to type a password and pass a second factor at the provider. */
const PENDING_MAX_AGE_S = 600;
const HEADERS = Object.freeze({ 'Cache-Control': 'no-store' });


function cookie(publicUrl: string, value: string, maxAge: number): string {
  const path = `${withoutTrailingSlashes(new URL(publicUrl).pathname)}${SIGN_IN_PATH}`;
  // Lax, not Strict: the way back is a top-level navigation from the provider's site.
  return `${COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=${path}; Max-Age=${maxAge}${publicUrl.startsWith('https:') ? '; Secure' : ''}`;
}

const encode = (pending: PendingSignIn) => Buffer.from(JSON.stringify([pending.state, pending.nonce, pending.codeVerifier])).toString('base64url');

function pendingOf(headers: IncomingHttpHeaders): PendingSignIn | undefined {
  const header = headers.cookie;
  if (typeof header !== 'string' || header.length > 8192) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== COOKIE) continue;
    try {
      const parts: unknown = JSON.parse(Buffer.from(part.slice(eq + 1).trim(), 'base64url').toString('utf8'));
      if (!Array.isArray(parts) || parts.length !== 3 || !parts.every((p) => typeof p === 'string' && p.length > 0 && p.length <= 256)) return undefined;
      return { state: parts[0], nonce: parts[1], codeVerifier: parts[2] };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export function adminSignInRoutes(deps: HttpDeps): ServiceRoute[] {
  const redirectUri = (publicUrl: string) => `${publicUrl}${SIGN_IN_CALLBACK_PATH}`;
  return [
    {
      path: SIGN_IN_PATH,
      // Anyone may start one, and each costs a call to the provider's discovery (cached) and a cookie.
      limited: true,
      headers: HEADERS,
      answer: async (): Promise<Reply> => {
        const publicUrl = deps.manageOperators.signInPublicUrl();
        const { url, pending } = await deps.manageOperators.beginSignIn(redirectUri(publicUrl));
        return { status: 302, type: 'text/plain; charset=utf-8', headers: { Location: url, 'Set-Cookie': cookie(publicUrl, encode(pending), PENDING_MAX_AGE_S) }, body: '' };
      },
    },
    {
      path: SIGN_IN_CALLBACK_PATH,
      limited: true,
      headers: HEADERS,
      answer: async (r): Promise<Reply> => {
        const publicUrl = deps.manageOperators.signInPublicUrl();
        const pending = pendingOf(r.headers);
        if (pending === undefined) {
          throw new DomainError(ErrorCode.UNAUTHENTICATED, `operator sign-in: no sign-in is under way in this browser (its cookie is missing or expired); start again at ${SIGN_IN_PATH}`);
        }
        const signed = await deps.manageOperators.completeSignIn(`${redirectUri(publicUrl)}${r.query === '' ? '' : `?${r.query}`}`, redirectUri(publicUrl), pending);
        const { operator } = signed;
        return jsonReply(
          200,
          { success: true, data: { operator: { name: operator.name, roles: [...operator.roles], vaults: operator.vaults === null ? null : [...operator.vaults] }, token: signed.token, tokenType: 'Bearer', expires: signed.expires.toISOString() } },
          // The state, nonce and verifier are spent: the cookie goes.
          { 'Set-Cookie': cookie(publicUrl, '', 0) },
        );
      },
    },
  ];
}
