// `npm run docs:screenshots`: the pictures of docs/console.md, made by driving the approvers' console in the
// real Chromium through the same steps as its browser test (test/support/console-flow.ts), against the real
// vault: run it whenever the page changes and commit the PNGs it writes to docs/console/. It runs under
// vitest (scripts/docs-screenshots.config.mjs) only to load the TypeScript of the test support as the tests do.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { decide, enrol, launchChromium, newApprover, openView, PHONE, signIn, signOut } from '../test/support/console-browser.js';
import { Interface } from 'ethers';
import { holdUndecoded, PAYROLL, PERMIT_TOKEN, showApproval, startConsoleWorld, type ConsoleWorld } from '../test/support/console-flow.js';
import { LOCAL_UNIQ, localSignBody, MINT_TO } from '../test/support/sign-request.js';
import { permitBatch } from '../test/support/typed-data-fixtures.js';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'console');
let world: ConsoleWorld;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  [world, browser] = await Promise.all([startConsoleWorld(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await world?.close();
});

const shot = async (page: Page, name: string, fullPage = true) => {
  // The caret and the focus ring of the heading stay out of the picture; on a whole-page picture so does the
  // status line, which keeps to the bottom of the window and would be drawn across the middle of the page.
  await page.evaluate((whole) => {
    (document.activeElement as HTMLElement | null)?.blur();
    if (whole) document.getElementById('status')?.replaceChildren();
  }, fullPage);
  await page.screenshot({ path: path.join(out, `${name}.png`), fullPage, animations: 'disabled' });
  console.log(`docs/console/${name}.png`);
};

it('writes the console screenshots to docs/console/', async () => {
  mkdirSync(out, { recursive: true });
  const first = await world.holdSign('20000');
  const second = await world.holdSign('250000');
  // A third, left pending: the list shows more than one.
  await world.holdSign('31000');

  const alex = await newApprover(browser);
  await enrol(alex, await world.invite(), 'Alex Morgan', { beforeSubmit: () => shot(alex.page, 'enrol', false) });
  await signOut(alex);
  await shot(alex.page, 'sign-in', false);
  await signIn(alex, world.consoleUrl);
  await shot(alex.page, 'pending');
  await showApproval(alex, first);
  await shot(alex.page, 'approval');
  await decide(alex, 'approve');

  const sam = await newApprover(browser, { viewport: PHONE });
  await enrol(sam, await world.invite(), 'Sam Lee');
  await showApproval(sam, second);
  await shot(sam.page, 'approval-phone');
  await decide(sam, 'reject');

  const permit = await world.holdPermit(1_500_000_000n);
  await openView(alex, 'Pending');
  await alex.page.locator(`a[href="#/approvals/${permit}"]`).click();
  await alex.page.getByRole('table', { name: 'Fields of Permit' }).waitFor();
  await shot(alex.page, 'approval-typed-data');

  await openView(alex, 'History');
  await shot(alex.page, 'history');
  await showApprovalFromHistory(alex.page, first);
  await shot(alex.page, 'approval-decided');

  // What no rule of the operator's decodes, shown all the same (docs/console.md, "What an approver sees").
  await holdUndecoded(world);
  const data = new Interface(['function transfer(address to, uint256 amount)']).encodeFunctionData('transfer', [MINT_TO, 10_000_000n]);
  const transfer = await world.hold(`/wallets/${world.walletAddress}/sign-transaction`, {
    type: 'eip1559', chainId: 31337, nonce: 7, to: PERMIT_TOKEN, value: '0', data, gas: '90000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000000',
  });
  await showById(alex.page, transfer);
  await shot(alex.page, 'approval-calldata');
  const amounts = Array.from({ length: 51 }, (_, i) => BigInt(i + 1) * 1_000_000n);
  const batch = await world.hold(`/wallets/${world.walletAddress}/sign-typed-data`, permitBatch({ token: PERMIT_TOKEN, amounts, spender: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc' }));
  await showById(alex.page, batch);
  // The window, not the page (200 rows are above it): the last rows, the line that says how many are not shown, and the disabled Approve.
  await alex.page.getByText('6 more fields of 206').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await alex.page.evaluate(() => window.scrollBy(0, -120));
  await shot(alex.page, 'approval-more-fields', false);
  const aside = await world.hold('/sign', localSignBody(world.walletAddress, { contract: PAYROLL.toLowerCase(), uniq: LOCAL_UNIQ, args: [MINT_TO, '5000000'] }));
  await showById(alex.page, aside);
  await shot(alex.page, 'approval-uniq-warning');
});

/** Approval `id`'s detail, by its address. */
async function showById(page: Page, id: string) {
  await page.goto(`${world.consoleUrl}#/approvals/${id}`);
  await page.getByRole('heading', { level: 2, name: 'Decision' }).waitFor();
}

/** The decided approval's detail, from the history's link. */
async function showApprovalFromHistory(page: Page, id: string) {
  await page.locator(`a[href="#/approvals/${id}"]`).click();
  await page.getByRole('heading', { level: 2, name: 'Result' }).waitFor();
}
