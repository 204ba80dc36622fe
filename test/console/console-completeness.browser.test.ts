import { Interface } from 'ethers';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, chromiumAvailable, CHROMIUM, decide, launchChromium, type ConsoleApprover } from '../support/console-browser.js';
import { CONTRACT_NAMES, enrolledApprover, holdUndecoded, PAYROLL, PAYROLL_NAME, PERMIT_TOKEN, startConsoleWorld, type ConsoleWorld } from '../support/console-flow.js';
import { LOCAL_CONTRACT, LOCAL_UNIQ, localSignBody, MINT_TO } from '../support/sign-request.js';
import { permitBatch } from '../support/typed-data-fixtures.js';

if (!chromiumAvailable) console.warn(`SKIPPED: the console's browser test needs Debian's chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run does)`);

// EIP-55, as the console shows addresses.
const LOCAL_CONTRACT_55 = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
/** Who a batch permit lets spend: the field past the first page. */
const SPENDER = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
const LAST_AMOUNT = 987_654_321_987_654_321n;

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/*
 * Approvers see everything that is signed (docs/console.md, "What an approver sees"), in the real Chromium
 * against the real vault: a held transaction's calldata when no rule names its function, typed data past its
 * first page of fields (approving waits until they are shown), and a Sign's uniq and signer with a warning
 * when the contract it names is not the one the policy pins that uniq to.
 */
describe.skipIf(!chromiumAvailable)("the approvers' console shows every field that is signed", { timeout: 240_000 }, () => {
  let world: ConsoleWorld;
  let browser: Browser;
  let alex: ConsoleApprover;

  beforeAll(async () => {
    [world, browser] = await Promise.all([startConsoleWorld(), launchChromium()]);
    await holdUndecoded(world);
    alex = await enrolledApprover(world, browser, 'Alex Morgan');
    // The world, a browser, a policy and an enrolment with the real CLI: a minute or more on a busy machine.
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  const axeClean = async (view: string) => expect({ view, violations: await axeViolations(alex.page) }).toEqual({ view, violations: [] });
  const open = async (id: string) => {
    await alex.page.goto(`${world.consoleUrl}#/approvals/${id}`);
    await alex.page.getByRole('heading', { level: 2, name: 'Decision' }).waitFor();
  };
  const approveButton = () => alex.page.getByRole('button', { name: 'Approve with passkey' });

  it('a held transaction under a rule naming no function shows its calldata, raw, and every other field', async () => {
    const data = new Interface(['function transfer(address to, uint256 amount)']).encodeFunctionData('transfer', [MINT_TO, 10_000_000n]);
    const tx = { type: 'eip1559', chainId: 31337, nonce: 7, to: PERMIT_TOKEN, value: '0', data, gas: '90000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000000' };
    const id = await world.hold(`/wallets/${world.walletAddress}/sign-transaction`, tx);
    await open(id);
    const calldata = alex.page.getByRole('region', { name: 'Calldata (hex)' });
    expect(await calldata.innerText()).toBe(data.toLowerCase());
    const main = await alex.page.getByRole('main').innerText();
    expect(main).toContain('No function the operator named decodes it');
    expect(main).toMatch(/Selector\s+0xa9059cbb/);
    expect(main).toMatch(/Bytes\s+68/);
    // The other fields as given: the nonce and gas the signature binds too.
    expect(main).toMatch(/nonce\s+7/);
    expect(main).toMatch(/gas\s+90000/);
    expect(main).toMatch(new RegExp(`to\\s+${CONTRACT_NAMES.permit}\\s+${PERMIT_TOKEN}`));
    expect(await approveButton().isEnabled()).toBe(true);
    await axeClean('transaction approval (raw calldata)');
  });

  it('a Permit2 PermitBatch of 51 entries says "6 more fields"; approving waits until they are shown, then the 51st amount and the spender are there', async () => {
    const amounts = [...Array.from({ length: 50 }, (_, i) => BigInt(i + 1) * 1000n), LAST_AMOUNT];
    const id = await world.hold(`/wallets/${world.walletAddress}/sign-typed-data`, permitBatch({ token: PERMIT_TOKEN, amounts, spender: SPENDER }));
    await open(id);
    const fields = alex.page.getByRole('table', { name: 'Fields of PermitBatch' });
    expect(await fields.locator('tbody tr').count()).toBe(200);
    const main = alex.page.getByRole('main');
    expect(await main.innerText()).toMatch(/6 more fields of 206 are not shown yet/);
    expect(await main.innerText()).not.toContain(SPENDER);
    expect(await approveButton().isDisabled()).toBe(true);
    // Rejecting signs nothing: it never waits.
    expect(await alex.page.getByRole('button', { name: 'Reject with passkey' }).isEnabled()).toBe(true);
    await axeClean('typed data with fields not shown yet');

    await alex.page.getByRole('button', { name: 'Show 6 more fields' }).click();
    await main.getByText('All 206 fields are shown.').waitFor();
    const rows = await fields.locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(206);
    expect(rows.slice(200)).toEqual([
      // The operator's name of the token (contractNames) beside its address, as every address the policy names.
      expect.stringMatching(new RegExp(`^details\\[50\\]\\.token\\s+address\\s+${CONTRACT_NAMES.permit}\\s+${PERMIT_TOKEN}$`)),
      expect.stringMatching(new RegExp(`^details\\[50\\]\\.amount\\s+uint160\\s+${LAST_AMOUNT}$`)),
      expect.stringMatching(/^details\[50\]\.expiration\s+uint48\s+1798761600$/),
      expect.stringMatching(/^details\[50\]\.nonce\s+uint48\s+50$/),
      expect.stringMatching(new RegExp(`^spender\\s+address\\s+${SPENDER}$`)),
      expect.stringMatching(/^sigDeadline\s+uint256\s+1798761600$/),
    ]);
    expect(await approveButton().isEnabled()).toBe(true);
    expect(await main.innerText()).not.toContain('Approving is possible once every field');
    await axeClean('typed data with every field shown');
    expect(await decide(alex, 'approve')).toBe('Approved. The quorum is reached and the signature is released.');
  });

  it("a held Sign on a chain without an RPC shows its uniq and signer, and warns that the named contract is not the one the uniq pins", async () => {
    // Payroll vault's name, Reward token's pinned uniq: the signature would be valid on Reward token.
    const id = await world.hold('/sign', localSignBody(world.walletAddress, { contract: PAYROLL.toLowerCase(), uniq: LOCAL_UNIQ, args: [MINT_TO, '5000000'] }));
    await open(id);
    const main = await alex.page.getByRole('main').innerText();
    expect(main).toMatch(new RegExp(`Contract\\s+${PAYROLL_NAME}\\s+${PAYROLL}`));
    expect(main).toMatch(new RegExp(`Uniq\\s+${LOCAL_UNIQ}\\s+pinned for ${CONTRACT_NAMES.mint} ${LOCAL_CONTRACT_55}`));
    expect(main).toMatch(new RegExp(`Signer\\s+${world.walletAddress}`));
    const warning = alex.page.getByRole('note', { name: 'Not the contract named' });
    expect(await warning.innerText()).toMatch(
      new RegExp(`This uniq is the one the policy pins for ${literal(`${CONTRACT_NAMES.mint} (${LOCAL_CONTRACT_55})`)}, not for ${literal(`${PAYROLL_NAME} (${PAYROLL})`)}: the signature is valid on that contract`),
    );
    await axeClean('Sign with a uniq pinned for another contract');
    // The pending list says it too.
    await alex.page.goto(`${world.consoleUrl}#/pending`);
    await alex.page.getByRole('heading', { level: 1, name: 'Pending approvals' }).waitFor();
    expect(await alex.page.locator(`a[href="#/approvals/${id}"]`).locator('xpath=ancestor::article').innerText()).toMatch(/Warning\s+This uniq is the one the policy pins for/);

    // The contract the uniq is pinned for: no warning.
    const pinned = await world.hold('/sign', localSignBody(world.walletAddress, { args: [MINT_TO, '20000'] }));
    await open(pinned);
    expect(await alex.page.getByRole('main').innerText()).toMatch(new RegExp(`Uniq\\s+${LOCAL_UNIQ}\\s+pinned for ${CONTRACT_NAMES.mint} ${LOCAL_CONTRACT_55}`));
    expect(await alex.page.getByRole('note', { name: 'Not the contract named' }).count()).toBe(0);
    expect(alex.problems.filter((p) => !/the server responded with a status of 401/.test(p))).toEqual([]);
  });
});
