import type { IncomingHttpHeaders } from 'node:http';
import type { ConsoleCaller } from '../../src/application/console/console-room.js';
import { DomainError, ErrorCode, invalidArgument } from '../../src/domain/errors.js';
import { withoutTrailingSlashes } from '../../src/domain/url-path.js';
import { consoleAssets } from './console-assets.js';
import type { HttpDeps } from './http-deps.js';
import { challengeClientKey } from './rate-limits.js';
import { jsonReply, type Reply } from './routes.js';
import type { ServiceRequest, ServiceRoute } from './service-routes.js';

/*
 * The approvers' console (docs/console.md): the page and its assets, and
 * its JSON API under /console/api. No API key: a passkey session (cookie `wallet_vault_console`, HttpOnly,
 * SameSite=Strict, Path=<public path>/console, Secure under https), and on every state-changing request
 * the header `X-Requested-With: wallet-vault-console` (CSRF belt and braces: a cross-site form cannot set
 * it, and a cross-site fetch that sets it is preflighted and refused). Every answer carries the CSP.
 */

export const SESSION_COOKIE = 'wallet_vault_console';
export const CSRF_HEADER = 'x-requested-with';
export const CSRF_VALUE = 'wallet-vault-console';

/** On every /console answer, the API's too. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
});
const API_HEADERS = Object.freeze({ ...CONSOLE_HEADERS, 'Cache-Control': 'no-store' });

type ConsoleSessionPorts = NonNullable<HttpDeps['consoleSessions']>;

/** The session id of the request's cookie, or undefined. */
export function sessionCookieOf(headers: IncomingHttpHeaders): string | undefined {
  const cookie = headers.cookie;
  if (typeof cookie !== 'string' || cookie.length > 8192) return undefined;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function cookiePath(publicUrl: string | undefined): string {
  const path = publicUrl === undefined ? '' : withoutTrailingSlashes(new URL(publicUrl).pathname);
  return `${path}/console`;
}

function sessionCookie(c: ConsoleSessionPorts, sessionId: string | null): string {
  const url = c.publicUrl();
  const secure = url?.startsWith('https:') ? '; Secure' : '';
  const value = sessionId ?? '';
  const age = sessionId === null ? 0 : 8 * 3600;
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=${cookiePath(url)}; Max-Age=${age}${secure}`;
}

function requireCsrfHeader(headers: IncomingHttpHeaders): void {
  if (headers[CSRF_HEADER] !== CSRF_VALUE) {
    throw new DomainError(ErrorCode.CONSOLE_CSRF_HEADER_MISSING, `console: a state-changing request needs the header X-Requested-With: ${CSRF_VALUE}`);
  }
}

const objectBody = (body: unknown): Record<string, unknown> => {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidArgument('body: a JSON object');
  return body as Record<string, unknown>;
};

function stateOf(query: string): 'pending' | 'decided' {
  const state = new URLSearchParams(query).get('state') ?? 'pending';
  if (state !== 'pending' && state !== 'decided') throw invalidArgument('state: "pending" or "decided"');
  return state;
}

/** The console's routes: the page, its assets and the JSON API. */
export function consoleRoutes(deps: HttpDeps): ServiceRoute[] {
  const { consoleEnrolment: enrolment, consoleSessions: c, consoleReview: review, consoleVotes: votes } = deps;
  if (enrolment === undefined || c === undefined || review === undefined || votes === undefined) return [];
  const assets = consoleAssets();
  const enabled = () => {
    if (c.publicUrl() === undefined) throw new DomainError(ErrorCode.CONSOLE_UNAVAILABLE, "the approvers' console is not enabled: set VAULT_PUBLIC_URL to the URL people reach this vault at (docs/console.md)");
  };
  const api = (method: 'GET' | 'POST' | 'DELETE', path: string, answer: (r: ServiceRequest) => Promise<Reply>, open = false): ServiceRoute => ({
    path: `/console/api${path}`,
    method,
    ...(method === 'POST' ? { body: 'json' as const } : {}),
    // Anyone may call these: each costs a database write, so each is counted per address.
    limited: open || method !== 'GET',
    // Sign-in, enrolment, votes and sign-out are recorded in the audit trail.
    ...(method === 'GET' ? {} : { audited: true }),
    headers: API_HEADERS,
    answer: async (r) => {
      enabled();
      if (method !== 'GET') requireCsrfHeader(r.headers);
      return answer(r);
    },
  });
  /** The signed-in approver of the request's cookie, or 401. */
  const caller = (r: ServiceRequest): Promise<ConsoleCaller> => c.session(sessionCookieOf(r.headers));
  const signedIn = (status: number, result: { approver: unknown; sessionId: string }): Reply =>
    jsonReply(status, { approver: result.approver }, { 'Set-Cookie': sessionCookie(c, result.sessionId) });
  const vote = (decision: 'approve' | 'reject') =>
    api('POST', `/approvals/:id/${decision}`, async (r) => {
      const who = await caller(r);
      return jsonReply(200, { approval: await votes.vote(who, r.params.id!, decision, objectBody(r.body).response) });
    });
  return [
    {
      path: '/console',
      headers: CONSOLE_HEADERS,
      answer: async (r) => {
        enabled();
        // The page names its assets relatively (assets/app.js): it must be read at /console/.
        // Relative, so a reverse proxy's path prefix is kept: /prefix/console → /prefix/console/.
        if (!r.pathname.endsWith('/')) return { status: 308, type: 'text/plain; charset=utf-8', headers: { Location: 'console/' }, body: 'see console/' };
        return assets.page();
      },
    },
    { path: '/console/assets/:name', headers: CONSOLE_HEADERS, answer: async (r) => (enabled(), assets.asset(r.params.name!)) },
    api(
      'POST',
      '/enrol/options',
      async (r) => jsonReply(200, await enrolment.enrolOptions(objectBody(r.body).token, challengeClientKey(r.client))),
      true,
    ),
    api('POST', '/enrol', async (r) => {
      const b = objectBody(r.body);
      return signedIn(201, await enrolment.enrol(b.token, b.name, b.response));
    }),
    api('POST', '/session/options', async (r) => jsonReply(200, await c.sessionOptions(challengeClientKey(r.client)))),
    api('POST', '/session', async (r) => signedIn(200, await c.signIn(objectBody(r.body).response))),
    api('GET', '/session', async (r) => jsonReply(200, { approver: (await caller(r)).approver })),
    api('DELETE', '/session', async (r) => {
      await c.endSession(await caller(r));
      return { status: 204, type: 'text/plain', headers: { 'Set-Cookie': sessionCookie(c, null) }, body: '' };
    }),
    api('GET', '/approvals', async (r) => jsonReply(200, { approvals: await review.approvals(await caller(r), stateOf(r.query)) })),
    api('GET', '/approvals/:id', async (r) => jsonReply(200, await review.approval(await caller(r), r.params.id!))),
    api('GET', '/approvals/:id/fields', async (r) => jsonReply(200, await review.typedDataFields(await caller(r), r.params.id!, new URLSearchParams(r.query).get('offset') ?? '0'))),
    api('POST', '/approvals/:id/challenge', async (r) => {
      const who = await caller(r);
      return jsonReply(200, await votes.decisionOptions(who, r.params.id!, objectBody(r.body).decision));
    }),
    vote('approve'),
    vote('reject'),
    api('GET', '/proposals', async (r) => jsonReply(200, { proposals: await review.proposals(await caller(r), stateOf(r.query)) })),
    api('GET', '/proposals/:id', async (r) => jsonReply(200, await review.proposal(await caller(r), r.params.id!))),
    api('GET', '/history', async (r) => jsonReply(200, await review.history(await caller(r)))),
  ];
}
