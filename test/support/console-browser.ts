import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';

/*
 * The approvers' console in a real Chromium (docs/console.md): an approver is a browser context with a
 * page and a CDP virtual authenticator (a passkey device that answers without a person), which records
 * every request the page makes and every problem it logs. The browser test and `npm run docs:screenshots`
 * drive the console through these steps, so the pictures in docs/ are of the flow the test checks.
 */

export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });

export const DESKTOP = { width: 1280, height: 900 } as const;
/** A phone's CSS width (an iPhone 12–15). */
export const PHONE = { width: 390, height: 844 } as const;

/** A credential as the virtual authenticator holds it (CDP WebAuthn.Credential): ids and keys base64. */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  /** PKCS#8 DER of the P-256 private key, base64. */
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

export interface ConsoleApprover {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cdp: CDPSession;
  readonly authenticatorId: string;
  /** Every URL the page requested, in order. */
  readonly requests: string[];
  /** Console errors, page errors and CSP refusals. */
  readonly problems: string[];
  /** The passkeys its authenticator holds now. */
  credentials(): Promise<VirtualCredential[]>;
  close(): Promise<void>;
}

/**
 * A new approver: a context of its own (its own cookies), a page, and a CTAP2 platform authenticator with
 * resident keys and user verification that always verifies (WebAuthn.addVirtualAuthenticator).
 */
export async function newApprover(browser: Browser, o: { viewport?: { width: number; height: number } } = {}): Promise<ConsoleApprover> {
  const context = await browser.newContext({ viewport: o.viewport ?? DESKTOP, reducedMotion: 'reduce', colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return {
    context,
    page,
    cdp,
    authenticatorId,
    requests,
    problems,
    credentials: async () => ((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as VirtualCredential[]),
    close: () => context.close(),
  };
}

/** The text of the status line (role=status) once it says something matching `pattern`. */
export async function statusSays(page: Page, pattern: RegExp): Promise<string> {
  const status = page.getByRole('status');
  await status.filter({ hasText: pattern }).waitFor();
  return (await status.textContent()) ?? '';
}

/** Opens the invitation URL, gives a name and creates the passkey; resolves once the pending list shows. */
export async function enrol(a: ConsoleApprover, inviteUrl: string, name: string, o: { beforeSubmit?: () => Promise<void> } = {}): Promise<void> {
  await a.page.goto(inviteUrl);
  await a.page.getByRole('heading', { level: 1, name: 'Create your passkey' }).waitFor();
  await a.page.getByLabel('Your name').fill(name);
  await o.beforeSubmit?.();
  await a.page.getByRole('button', { name: 'Create passkey' }).click();
  await a.page.getByRole('heading', { level: 1, name: 'Pending approvals' }).waitFor();
}

/** From the sign-in view (`url` is the console's), signs in with the passkey; resolves on the pending list. */
export async function signIn(a: ConsoleApprover, consoleUrl: string): Promise<void> {
  await a.page.goto(`${consoleUrl}#/signin`);
  await a.page.getByRole('button', { name: 'Sign in with passkey' }).click();
  await a.page.getByRole('heading', { level: 1, name: 'Pending approvals' }).waitFor();
}

/** Signs out with the bar's button; resolves on the sign-in view. */
export async function signOut(a: ConsoleApprover): Promise<void> {
  await a.page.getByRole('button', { name: 'Sign out' }).click();
  await a.page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
}

/** Follows the pending list's link to approval `id`; resolves on its detail view. */
export async function openApproval(a: ConsoleApprover, id: string): Promise<void> {
  await a.page.locator(`a[href="#/approvals/${encodeURIComponent(id)}"]`).click();
  await a.page.getByRole('heading', { level: 2, name: 'Decision' }).waitFor();
}

/** Approves or rejects the approval on screen with the passkey; resolves to what the status line then says. */
export async function decide(a: ConsoleApprover, decision: 'approve' | 'reject'): Promise<string> {
  await a.page.getByRole('button', { name: decision === 'approve' ? 'Approve with passkey' : 'Reject with passkey' }).click();
  return statusSays(a.page, decision === 'approve' ? /Approved|approval is recorded/ : /Rejected|rejection is recorded/);
}

/**
 * Presses Tab until the focus is on the element named `name` (its label, or its text) and matching
 * `selector` when given: what a keyboard-only approver does. Fails after 80 presses.
 */
export async function tabTo(page: Page, name: string, selector = '*'): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const there = await page.evaluate(
      ({ name, selector }) => {
        const el = document.activeElement;
        if (!(el instanceof HTMLElement) || !el.matches(selector)) return false;
        const label = el instanceof HTMLInputElement ? (el.labels?.[0]?.textContent ?? '') : (el.textContent ?? '');
        return label.trim().startsWith(name);
      },
      { name, selector },
    );
    if (there) return;
  }
  throw new Error(`no focusable "${name}" (${selector}) within 80 presses of Tab`);
}

/** Goes to one of the bar's views by its link; resolves on its heading. */
export async function openView(a: ConsoleApprover, link: 'Pending' | 'Proposals' | 'History'): Promise<void> {
  await a.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link }).click();
  const heading = { Pending: 'Pending approvals', Proposals: 'Pending proposals', History: 'History' }[link];
  await a.page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/**
 * The elements that reach past the right edge of the viewport (a phone's page that scrolls sideways), by
 * tag, class and a little text; the tables' own scrolling regions and what they hold are left out.
 */
export function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return [...document.body.querySelectorAll('*')]
      .filter((el) => !el.closest('.table-wrap') && el.getBoundingClientRect().right > width + 0.5)
      .map((el) => `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).replace(/ /g, '.')}` : ''} "${(el.textContent ?? '').trim().slice(0, 40)}"`);
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core over the page as it is (WCAG 2.0/2.1 A and AA rules and best practices), evaluated through
 * DevTools, which the page's CSP does not govern; resolves to the violations of `impacts`.
 */
export async function axeViolations(page: Page, impacts: readonly string[] = ['serious', 'critical']): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact !== null && impacts.includes(v.impact));
}

/** POSTs `body` to the console API from the page (its cookie, its origin, the CSRF header), as the page would. */
export function postFromPage(page: Page, path: string, body: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ path, body }) => {
      const res = await fetch(new URL(path, new URL('api/', location.href)), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'wallet-vault-console' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    { path, body },
  );
}
