import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Wallet } from 'ethers';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  chromiumAvailable,
  CHROMIUM,
  decide,
  enrol,
  launchChromium,
  newApprover,
  openView,
  overflowing,
  PHONE,
  postFromPage,
  signIn,
  signOut,
  tabTo,
  type ConsoleApprover,
} from '../support/console-browser.js';
import { CONTRACT_NAMES, enrolledApprover, HOLD_RULE, PERMIT_SPENDER, PERMIT_TOKEN, showApproval, startConsoleWorld, type ConsoleWorld } from '../support/console-flow.js';
import { signedAssertion } from '../support/webauthn-assertion.js';

if (!chromiumAvailable) console.warn(`SKIPPED: the console's browser test needs Debian's chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run does)`);

// As the approval shows them: EIP-55.
const MINTED_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/*
 * The approvers' console (issue 36, docs/console.md) in the real Chromium against the real vault: passkeys
 * made and used by a CDP virtual authenticator, decisions verified by the vault as WebAuthn assertions over
 * the Decision digest. The tests run in order and share the world: Alex enrols first and approves, Sam
 * rejects, then forged assertions are tried from Alex's page.
 */
// Each test drives a browser through several views, each with an axe run, and starts the CLI: minutes on a
// busy 2-core machine, so the bound is wide; none waits on a timer.
describe.skipIf(!chromiumAvailable)("the approvers' console in a real Chromium", { timeout: 240_000 }, () => {
  let world: ConsoleWorld;
  let browser: Browser;
  let alex: ConsoleApprover;
  let sam: ConsoleApprover;
  const approvers: ConsoleApprover[] = [];

  beforeAll(async () => {
    [world, browser] = await Promise.all([startConsoleWorld(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  /** Serious and critical axe findings on the page as it is now, with the view named. */
  const axeClean = async (a: ConsoleApprover, view: string) => expect({ view, violations: await axeViolations(a.page) }).toEqual({ view, violations: [] });

  it('an invited approver enrols, signs in with the passkey, sees the held sign decoded and approves it: the signature is released', async () => {
    const id = await world.holdSign('20000');
    alex = await newApprover(browser);
    approvers.push(alex);
    await enrol(alex, await world.invite(), 'Alex Morgan', { beforeSubmit: () => axeClean(alex, 'enrol') });
    expect(await alex.credentials()).toHaveLength(1);
    // The one-time token left the address bar (and the history) as soon as the page read it.
    expect(alex.page.url()).not.toMatch(/enrol=/);
    await axeClean(alex, 'pending approvals');

    // A session of its own: out, and back in with the passkey alone.
    await signOut(alex);
    await axeClean(alex, 'sign in');
    await signIn(alex, world.consoleUrl);

    await showApproval(alex, id);
    const args = alex.page.getByRole('table', { name: 'Arguments of mint' });
    // The operator's names (the hold rule's function text), each value decoded.
    expect(await args.locator('tbody tr').allInnerTexts()).toEqual([expect.stringMatching(new RegExp(`^to\\s+address\\s+${MINTED_TO}$`)), expect.stringMatching(/^amount\s+uint256\s+20000$/)]);
    const main = await alex.page.getByRole('main').innerText();
    expect(main).toContain('mint(address,uint256,(bytes32,bytes32,bytes32,uint8))');
    expect(main).toContain(HOLD_RULE);
    expect(main).toContain('Mints over 10,000 wait for an approver of finance');
    expect(main).toContain(world.walletAddress);
    // The operator's name of the contract, beside its address.
    expect(main).toMatch(/Contract\s+Reward token\s+0x5FbDB2315678afecb367f032d93F642f64180aa3/);
    expect(main).toMatch(/Votes so far\s+No votes yet/);
    await axeClean(alex, 'approval detail');

    expect(await decide(alex, 'approve')).toBe('Approved. The quorum is reached and the signature is released.');
    const released = await world.approvalOverApi(id);
    expect(released.status).toBe('approved');
    expect(released.result?.submissionHash).toMatch(/^0x[0-9a-f]{64}$/);
    // The page shows the decided request: the passkey vote and the result.
    await alex.page.getByRole('heading', { level: 2, name: 'Result' }).waitFor();
    expect(await alex.page.getByRole('main').innerText()).toMatch(/Alex Morgan\s+approve\s+.*\s+passkey/);

    await openView(alex, 'History');
    const history = await alex.page.getByRole('main').innerText();
    expect(history).toContain(String(released.result?.submissionHash));
    await axeClean(alex, 'history');
    await openView(alex, 'Proposals');
    await axeClean(alex, 'proposals');
  });

  it('a second approver, in a browser of its own and using the keyboard alone, rejects another: nothing is signed', async () => {
    const id = await world.holdSign('30000');
    sam = await newApprover(browser);
    approvers.push(sam);
    await sam.page.goto(await world.invite());
    await sam.page.getByRole('heading', { level: 1, name: 'Create your passkey' }).waitFor();
    await tabTo(sam.page, 'Your name');
    await sam.page.keyboard.type('Sam Lee');
    await sam.page.keyboard.press('Enter');
    await sam.page.getByRole('heading', { level: 1, name: 'Pending approvals' }).waitFor();

    await tabTo(sam.page, 'mint on', `a[href="#/approvals/${id}"]`);
    await sam.page.keyboard.press('Enter');
    await sam.page.getByRole('heading', { level: 2, name: 'Decision' }).waitFor();
    // The view's heading has the focus: a screen reader starts where the approver landed.
    expect(await sam.page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await tabTo(sam.page, 'Reject with passkey');
    await sam.page.keyboard.press('Enter');
    await sam.page.getByRole('status').filter({ hasText: 'Rejected. Nothing will be signed.' }).waitFor();

    const rejected = await world.approvalOverApi(id);
    expect(rejected).toMatchObject({ status: 'rejected', result: null });
    expect(await sam.page.getByRole('main').innerText()).toMatch(/Sam Lee\s+reject\s+.*\s+passkey/);
  });

  it('held typed data is shown field by field with its domain', async () => {
    const id = await world.holdPermit(1_500_000_000n);
    await openView(alex, 'Pending');
    await alex.page.locator(`a[href="#/approvals/${id}"]`).click();
    const fields = alex.page.getByRole('table', { name: 'Fields of Permit' });
    await fields.waitFor();
    expect(await fields.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(new RegExp(`^owner\\s+address\\s+${world.walletAddress}$`)),
      expect.stringMatching(new RegExp(`^spender\\s+address\\s+${PERMIT_SPENDER}$`)),
      expect.stringMatching(/^value\s+uint256\s+1500000000$/),
      expect.stringMatching(/^nonce\s+uint256\s+0$/),
      expect.stringMatching(/^deadline\s+uint256\s+1798761600$/),
    ]);
    const main = await alex.page.getByRole('main').innerText();
    expect(main).toMatch(/name\s+USD Coin/);
    // The token's name beside its address, in the request and in the domain.
    expect(main).toMatch(new RegExp(`Contract\\s+${CONTRACT_NAMES.permit}\\s+${PERMIT_TOKEN}`));
    expect(main).toMatch(new RegExp(`verifyingContract\\s+${CONTRACT_NAMES.permit}\\s+${PERMIT_TOKEN}`));
    expect(main).toContain('Token permits wait for an approver of finance');
    await axeClean(alex, 'typed-data approval');
  });

  it("a contract name is shown as text: markup in the operator's name is never made HTML", async () => {
    const policies = world.server.server.vault.managePolicies;
    const inForce = (await policies.export(world.vaultId))!;
    const hostile = '<img src=x onerror="document.body.dataset.named=1">USDC';
    await policies.apply(world.vaultId, { ...inForce, contractNames: { ...inForce.contractNames, [PERMIT_TOKEN]: hostile } });
    try {
      const id = await world.holdPermit(2_500_000_000n);
      await openView(alex, 'Pending');
      await alex.page.locator(`a[href="#/approvals/${id}"]`).click();
      await alex.page.getByRole('table', { name: 'Fields of Permit' }).waitFor();
      const main = alex.page.getByRole('main');
      const literal = hostile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(await main.innerText()).toMatch(new RegExp(`Contract\\s+${literal}\\s+${PERMIT_TOKEN}`));
      expect(await main.locator('img').count()).toBe(0);
      expect(await alex.page.evaluate(() => document.body.dataset.named ?? null)).toBeNull();
    } finally {
      await policies.apply(world.vaultId, inForce);
    }
  });

  it('forged assertions are refused and write nothing: another credential, another challenge, another origin; the same assertion made right counts', async () => {
    const id = await world.holdSign('40000');
    await alex.page.goto(`${world.consoleUrl}#/pending`);
    await alex.page.getByRole('heading', { level: 1, name: 'Pending approvals' }).waitFor();
    const [own] = await alex.credentials();
    const [samCredential] = await sam.credentials();
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const stranger = { credentialId: randomBytes(16).toString('base64'), isResidentCredential: true, privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'), signCount: 0 };
    let signCount = own!.signCount;

    const challenge = async () => {
      const r = await postFromPage(alex.page, `approvals/${id}/challenge`, { decision: 'approve' });
      expect(r.status).toBe(200);
      return r.body.options as { challenge: string; rpId: string };
    };
    const attempt = async (o: { credential?: typeof stranger; challenge?: string; origin?: string }) => {
      const options = await challenge();
      expect(options.rpId).toBe('localhost');
      const response = signedAssertion({
        credential: o.credential ?? own!,
        rpId: options.rpId,
        origin: o.origin ?? world.origin,
        challenge: o.challenge ?? options.challenge,
        signCount: ++signCount,
      });
      return postFromPage(alex.page, `approvals/${id}/approve`, { response });
    };
    const refusals = {
      'an unknown credential': await attempt({ credential: stranger }),
      "another approver's credential": await attempt({ credential: samCredential! }),
      'another challenge': await attempt({ challenge: randomBytes(32).toString('base64url') }),
      'another origin': await attempt({ origin: 'https://wallet-vault.example' }),
      'another port of the origin': await attempt({ origin: world.origin.replace(/:(\d+)$/, (_, p) => `:${Number(p) + 1}`) }),
    };
    for (const [what, r] of Object.entries(refusals)) expect({ what, status: r.status, code: r.body?.error?.code ?? r.body?.code }).toEqual({ what, status: 403, code: 'APPROVAL_SIGNATURE_INVALID' });
    expect(await world.approvalOverApi(id)).toMatchObject({ status: 'pending', result: null });

    // The same forgery with nothing altered is a valid vote: the refusals were for what was altered.
    const made = await attempt({});
    expect(made.status).toBe(200);
    expect(made.body.approval).toMatchObject({ status: 'approved', votes: [{ approver: { name: 'Alex Morgan' }, decision: 'approve', kind: 'passkey' }] });
    expect((await world.approvalOverApi(id)).status).toBe('approved');
  });

  it('on a governed vault the enrolled approver is told its votes wait for the proposal listing its passkey, until the quorum signs it', async () => {
    const vault = world.server.server.vault;
    const { id: vaultId } = await vault.manageVaults.create({ name: 'governed treasury' });
    const governor = Wallet.createRandom();
    await vault.governance.set(vaultId, { required: 1, approvers: [governor.address] }, 'operator');
    const kim = await newApprover(browser);
    approvers.push(kim);
    await enrol(kim, (await vault.consoleInvites.invite(vaultId)).url, 'Kim Ito');
    const notice = kim.page.getByRole('link', { name: 'the proposal that lists your passkey' });
    await notice.waitFor();
    expect(await kim.page.getByRole('main').innerText()).toContain('This vault is governed: your votes count once its governance approvers have signed');
    await axeClean(kim, 'pending approvals (enrolment waiting for the quorum)');
    const proposal = (await vault.governance.list(vaultId)).find((p) => p.status === 'pending')!;
    expect(await notice.getAttribute('href')).toBe(`#/proposals/${proposal.id}`);

    const t = proposal.typedData;
    await vault.governance.vote(vaultId, proposal.id, 'approve', await governor.signTypedData(t.domain, { ...t.types } as never, t.message), 'operator');
    // The page reads the session again while it waits: the next view says nothing of waiting.
    await openView(kim, 'History');
    await openView(kim, 'Pending');
    expect(await kim.page.getByRole('main').innerText()).not.toContain('This vault is governed');
  });

  it('the page loads nothing from another origin, logs no error, and reads on a phone; axe finds nothing serious there either', async () => {
    const phone = await enrolledApprover(world, browser, 'Robin Park', { viewport: PHONE });
    approvers.push(phone);
    await axeClean(phone, 'pending approvals (phone)');
    await openView(phone, 'History');
    await axeClean(phone, 'history (phone)');
    // Nothing wider than the screen but the tables' own scrolling regions.
    expect(await overflowing(phone.page)).toEqual([]);
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    const page = await browser.newPage();
    const res = await page.request.get(world.consoleUrl);
    await page.close();
    expect(res.headers()['content-security-policy']).toContain("default-src 'none'");

    const requested = approvers.flatMap((a) => a.requests);
    expect(requested.length).toBeGreaterThan(20);
    expect(requested.filter((u) => !u.startsWith(`${world.origin}/`))).toEqual([]);
    // Chromium logs every answer of 400 and above: the session probe's 401 before sign-in (as the contract
    // says) and the forged assertions' 403s above. Nothing else may fail: no script error, no CSP refusal.
    const problems = approvers.flatMap((a) => a.problems).filter((p) => !/the server responded with a status of 40[13]/.test(p));
    expect(problems).toEqual([]);
  });
});
