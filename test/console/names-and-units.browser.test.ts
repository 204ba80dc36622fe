import { Interface } from 'ethers';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, CHROMIUM, launchChromium, type ConsoleApprover } from '../support/console-browser.js';
import { enrolledApprover, GROUP, startConsoleWorld, type ConsoleWorld } from '../support/console-flow.js';
import { client } from '../support/http-client.js';

if (!chromiumAvailable) console.warn(`SKIPPED: the console's browser test needs Debian's chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run does)`);

const TUSD = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const PAYROLL = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const PAYROLL_NAME = 'Payroll (Acme GmbH)';
const REQUESTER_LABEL = 'ERP payroll run';

/*
 * Names and units (docs/policy.md, "Names and units"), in the real Chromium against the real vault: a held
 * transfer of 15 000 TUSD reads so, to the recipient the operator named, with its requester's label; the
 * approvals API says the same.
 */
describe.skipIf(!chromiumAvailable)("the approvers' console shows amounts in the token's units and names beside addresses", { timeout: 240_000 }, () => {
  let world: ConsoleWorld;
  let browser: Browser;
  let alex: ConsoleApprover;
  let id: string;
  let requester: ReturnType<typeof client>;

  beforeAll(async () => {
    [world, browser] = await Promise.all([startConsoleWorld(), launchChromium()]);
    const vault = world.server.server.vault;
    const inForce = (await vault.managePolicies.export(world.vaultId))!;
    await vault.managePolicies.apply(world.vaultId, {
      ...inForce,
      rules: [
        ...inForce.rules,
        {
          id: 'payroll',
          description: 'Payroll transfers wait for finance',
          effect: { hold: { required: 1, group: GROUP } },
          kinds: ['transaction'],
          contracts: [TUSD],
          function: 'transfer(address to, uint256 amount)',
        },
      ],
      tokens: { [TUSD]: { symbol: 'TUSD', decimals: 6 } },
      addressNames: { [PAYROLL]: PAYROLL_NAME },
    });
    const { apiKey } = await vault.manageVaults.createApiKey(world.vaultId, { roles: ['signer', 'reader'], label: REQUESTER_LABEL });
    requester = client(world.server.url, apiKey);
    const data = new Interface(['function transfer(address to, uint256 amount)']).encodeFunctionData('transfer', [PAYROLL, 15_000_000_000n]);
    const tx = { type: 'eip1559', chainId: 31337, nonce: 3, to: TUSD, value: '0', data, gas: '90000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000000' };
    const held = await requester.post(`/api/v1/vaults/${world.vaultId}/wallets/${world.walletAddress}/sign-transaction`, tx);
    if (held.status !== 202) throw new Error(`not held: ${held.status} ${JSON.stringify(held.body)}`);
    id = held.body.data.approval.id;
    alex = await enrolledApprover(world, browser, 'Alex Morgan');
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('the held 15 000 TUSD transfer reads so, to "Payroll (Acme GmbH)", with its requester\'s label', async () => {
    const card = alex.page.locator(`a[href="#/approvals/${id}"]`).locator('xpath=ancestor::article');
    await card.waitFor();
    const short = await card.innerText();
    expect(short).toContain(`to ${PAYROLL_NAME}, amount 15 000 TUSD`);
    expect(short).toContain(REQUESTER_LABEL);

    await alex.page.goto(`${world.consoleUrl}#/approvals/${id}`);
    const args = alex.page.getByRole('table', { name: 'Arguments of transfer' });
    await args.waitFor();
    const rows = await args.locator('tbody tr').allInnerTexts();
    expect(rows).toEqual([
      expect.stringMatching(new RegExp(`^to\\s+address\\s+${PAYROLL_NAME.replace(/[()]/g, '\\$&')}\\s+${PAYROLL}$`)),
      expect.stringMatching(/^amount\s+uint256\s+15 000 TUSD\s+\(15000000000\)$/),
    ]);
    expect(await alex.page.getByRole('main').innerText()).toMatch(new RegExp(`Requested by\\s+${REQUESTER_LABEL}`));
    expect(alex.problems.filter((p) => !/the server responded with a status of 401/.test(p))).toEqual([]);
  });

  it('the approvals API gives the same names and units', async () => {
    const read = await requester.get(`/api/v1/vaults/${world.vaultId}/approvals/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.requesterLabel).toBe(REQUESTER_LABEL);
    expect(read.body.data.request.tokenCall.arguments.map((a: { addressName?: string; tokenAmount?: { text: string } }) => a.addressName ?? a.tokenAmount?.text)).toEqual([
      PAYROLL_NAME,
      '15 000 TUSD (15000000000)',
    ]);
  });
});
