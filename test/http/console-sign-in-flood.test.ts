import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachBackend, type Backend, type Target } from '../support/backends.js';
import { client } from '../support/http-client.js';
import { SoftwareAuthenticator } from '../support/software-authenticator.js';

/*
 * Anonymous clients must not lock approvers out of the console. The attack, as found: one address asks for
 * sign-in challenges (no credential needed) until the vault's cap of outstanding ones is reached, about 33
 * a second keeping it full; then no approver could sign in, not even to reject. Each client address (an
 * IPv6 client per /48) now holds a few challenges at most, and the second half of the cap is kept for
 * clients that hold none, so a flood needs as many addresses as the reserve has room. The client address is
 * the proxy's X-Forwarded-For here: the vault trusts 127.0.0.1 as its proxy, so each test names its clients.
 */

const PUBLIC_URL = 'https://vault.example';
const RP = { origin: PUBLIC_URL, rpId: 'vault.example' } as const;
const CSRF = { 'x-requested-with': 'wallet-vault-console' } as const;
/** The default bounds (VAULT_CONSOLE_CHALLENGES_PER_CLIENT, VAULT_CONSOLE_CHALLENGES). */
const PER_CLIENT = 8;
const OUTSTANDING = 10_000;

/** The console's JSON API on `s` as the client at `address` (behind the trusted proxy) sees it. */
const consoleFrom = (s: Target, address: string) => {
  const http = client(s.url);
  const headers = { ...CSRF, 'x-forwarded-for': address };
  return {
    post: (path: string, body: unknown, cookie?: string) => http.post(`/console/api${path}`, body, { ...headers, ...(cookie ? { cookie } : {}) }),
    get: (path: string, cookie: string) => http.get(`/console/api${path}`, { ...headers, cookie }),
  };
};

/** An approver of a fresh vault, enrolled through the API from `address`: its authenticator. */
async function enrolledApprover(s: Target, address: string): Promise<SoftwareAuthenticator> {
  const { vaultId } = await s.vaultWithKey(`approvers-${address}`);
  const { url } = await s.vault.consoleInvites.invite(vaultId);
  const token = url.slice(url.indexOf('#enrol=') + '#enrol='.length);
  const api = consoleFrom(s, address);
  const options = await api.post('/enrol/options', { token });
  expect(options.status).toBe(200);
  const authenticator = new SoftwareAuthenticator();
  expect((await api.post('/enrol', { token, name: 'Alice', response: authenticator.register(options.body.options, RP) })).status).toBe(201);
  return authenticator;
}

/** A sign-in from `address`: the options, the assertion over their challenge, and the session it opens. */
async function signIn(s: Target, address: string, authenticator: SoftwareAuthenticator) {
  const api = consoleFrom(s, address);
  const options = await api.post('/session/options', {});
  expect(options.status, JSON.stringify(options.body)).toBe(200);
  const session = await api.post('/session', { response: authenticator.assert(options.body.options.challenge, RP) });
  expect(session.status, JSON.stringify(session.body)).toBe(200);
  const cookie = /wallet_vault_console=([^;]*)/.exec(session.headers.get('set-cookie') ?? '')![1]!;
  expect((await api.get('/session', `wallet_vault_console=${cookie}`)).status).toBe(200);
}

/** Challenge requests from `address`, `workers` at a time, until one is refused or `most` were answered: the answers. */
async function flood(s: Target, address: string, most: number, workers = 16) {
  const api = consoleFrom(s, address);
  const answers: { status: number; retryAfter: string | null; code: unknown }[] = [];
  let refused = false;
  const worker = async () => {
    while (!refused && answers.length < most) {
      const r = await api.post('/session/options', {});
      answers.push({ status: r.status, retryAfter: r.headers.get('retry-after'), code: r.body?.error?.code ?? r.body?.code });
      if (r.status !== 200) refused = true;
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return answers;
}

const statuses = (answers: readonly { status: number }[]) => {
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
};

describeEachBackend('sign-in challenges under a flood of anonymous clients', (backend: Backend) => {
  let s: Target;
  beforeAll(async () => {
    s = await backend.start({ publicUrl: PUBLIC_URL, trustedProxies: ['127.0.0.1'] });
  });
  afterAll(async () => {
    await s?.close();
  });

  it(`one address asking for challenges until refused (up to the ${OUTSTANDING} the vault holds at most): an approver elsewhere still signs in`, async () => {
    const approver = await enrolledApprover(s, '198.51.100.7');
    // As the attack was sent: as fast as it is answered, until the vault says no.
    const first = await flood(s, '203.0.113.66', OUTSTANDING + 1);
    // The approver is not locked out (it was: the flood had taken every challenge the vault holds).
    await signIn(s, '198.51.100.7', approver);
    expect(first.filter((a) => a.status === 200).length).toBe(PER_CLIENT);
    // And on: every further one is refused, with when to come back, and stores nothing.
    const more = await flood(s, '203.0.113.66', 50, 1);
    expect(statuses(more.slice(0, 1))).toEqual({ 429: 1 });
    for (let i = 0; i < 20; i++) expect((await consoleFrom(s, '203.0.113.66').post('/session/options', {})).status).toBe(429);
    const refusal = [...first, ...more].find((a) => a.status === 429)!;
    expect(refusal.code).toBe('RATE_LIMITED');
    expect(Number(refusal.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refusal.retryAfter)).toBeLessThanOrEqual(300);
    await signIn(s, '198.51.100.7', approver);
    // Its own challenges expire (5 minutes), and the flooding address may ask again.
    s.clock.advance(5 * 60_000 + 1);
    expect((await consoleFrom(s, '203.0.113.66').post('/session/options', {})).status).toBe(200);
  }, 600_000);

  it('an IPv6 client counts per /48: a flood from every /64 of one /48 is one client; another /48 signs in', async () => {
    const approver = await enrolledApprover(s, '2001:db8:beef::1');
    const answers = [];
    for (let i = 0; i < PER_CLIENT + 4; i++) answers.push((await consoleFrom(s, `2001:db8:1:${i.toString(16)}::${i + 1}`).post('/session/options', {})).status);
    expect(answers).toEqual([...Array<number>(PER_CLIENT).fill(200), 429, 429, 429, 429]);
    await signIn(s, '2001:db8:beef:1::2', approver);
  });
});

describeEachBackend('sign-in challenges: the reserve kept for clients that hold none', (backend: Backend) => {
  let s: Target;
  const perClient = 4;
  const outstanding = 40;
  beforeAll(async () => {
    s = await backend.start({ publicUrl: PUBLIC_URL, trustedProxies: ['127.0.0.1'], consoleChallenges: { perClient, outstanding } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('past half the cap a client holding one gets no other; the last half goes one per client; full is 429 for all', async () => {
    const approver = await enrolledApprover(s, '198.51.100.9');
    const ask = (address: string) => consoleFrom(s, address).post('/session/options', {});
    // Five addresses at their cap fill half.
    for (let a = 1; a <= 5; a++) for (let k = 0; k < perClient; k++) expect((await ask(`203.0.113.${a}`)).status).toBe(200);
    expect((await ask('203.0.113.1')).status).toBe(429);
    // Past half, one of its own is enough to be refused, however few it holds.
    expect((await ask('203.0.113.6')).status).toBe(200);
    const second = await ask('203.0.113.6');
    expect([second.status, second.body.code]).toEqual([429, 'RATE_LIMITED']);
    // Each new address gets one, up to the cap: 21 outstanding, 18 more fill it, and the approver's is the 40th.
    for (let a = 7; a <= 24; a++) expect((await ask(`203.0.113.${a}`)).status).toBe(200);
    const last = await ask('198.51.100.9');
    expect(last.status).toBe(200);
    const full = await ask('203.0.113.200');
    expect([full.status, full.body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The approver signs in with the challenge it was given (one use: the reserve has room for one more).
    const session = await consoleFrom(s, '198.51.100.9').post('/session', { response: approver.assert(last.body.options.challenge, RP) });
    expect(session.status).toBe(200);
    expect((await ask('203.0.113.201')).status).toBe(200);
  });
});
