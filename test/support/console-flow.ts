import type { Browser } from 'playwright-core';
import { cliJson, freePort } from './cli.js';
import { enrol, newApprover, openApproval, type ConsoleApprover } from './console-browser.js';
import { client } from './http-client.js';
import { LOCAL_CONTRACT, LOCAL_UNIQ, localSignBody, MINT_TO } from './sign-request.js';
import { startTestServer, type TestServer } from './test-server.js';
import { asJson, permit } from './typed-data-fixtures.js';

/*
 * The world the approvers' console is shown in, shared by the browser test (test/console/) and
 * `npm run docs:screenshots` (scripts/docs-screenshots.ts): the real vault server at a localhost public URL
 * (a WebAuthn rpID must be a domain, never an IP address), a vault "treasury" with a wallet, a requester key,
 * and a policy whose hold rule names the function's arguments, so approvers see `to` and `amount` rather
 * than positions. Approvers are invited with the real `wallet-vault approvers invite` and enrol in the browser.
 */

/** The operator's function text: the names approvers see (never the requester's ABI names). */
export const MINT_TEXT = 'mint(address to, uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)';
export const HOLD_RULE = 'large-mints';
/** The token and spender of the held permit: USDC's domain, Permit2 as spender. */
export const PERMIT_TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
export const PERMIT_SPENDER = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
export const GROUP = 'finance';
/** The operator's names of the mint contract and the permit's token (policy `contractNames`): shown beside their addresses. */
export const CONTRACT_NAMES = { mint: 'Reward token', permit: 'USDC' } as const;

export interface ConsoleWorld {
  readonly server: TestServer;
  /** http://localhost:<port>: VAULT_PUBLIC_URL, the WebAuthn origin. */
  readonly origin: string;
  /** Where the console is: `${origin}/console/`. */
  readonly consoleUrl: string;
  readonly vaultId: string;
  readonly walletAddress: string;
  /** A one-time enrolment URL for the vault's group, printed by `wallet-vault approvers invite --json`. */
  invite(): Promise<string>;
  /** Posts `body` to `path` (under the vault's API) as the requester; resolves to the id of the approval that holds it (202). */
  hold(path: string, body: unknown): Promise<string>;
  /** A Sign request of `amount` that the hold rule holds; resolves to the approval's id. */
  holdSign(amount: string): Promise<string>;
  /** An EIP-2612 permit (typed data) of `value` that the permits rule holds; resolves to the approval's id. */
  holdPermit(value: bigint): Promise<string>;
  /** The approval as the vault's API shows it to the requester (`GET /approvals/{id}`). */
  approvalOverApi(id: string): Promise<{ status: string; result: Record<string, unknown> | null; [k: string]: unknown }>;
  close(): Promise<void>;
}

export async function startConsoleWorld(): Promise<ConsoleWorld> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const server = await startTestServer({ env: { PORT: String(port), VAULT_PUBLIC_URL: origin } });
  try {
    const vaultId = (await server.createVault({ name: 'treasury' })).id;
    const { apiKey } = await server.createApiKey(vaultId);
    const admin = client(server.url, apiKey);
    const base = `/api/v1/vaults/${vaultId}`;
    const wallet = await admin.post(`${base}/wallets`, { name: 'payouts' });
    if (wallet.status >= 300) throw new Error(`creating the wallet: ${wallet.status} ${JSON.stringify(wallet.body)}`);
    const walletAddress: string = wallet.body.data.address;
    const { apiKey: requesterKey } = await server.server.vault.manageVaults.createApiKey(vaultId, { roles: ['signer', 'reader'] });
    const requester = client(server.url, requesterKey);
    await server.server.vault.managePolicies.apply(vaultId, {
      version: 2,
      rules: [
        {
          id: HOLD_RULE,
          description: 'Mints over 10,000 wait for an approver of finance',
          effect: { hold: { required: 1, group: GROUP } },
          kinds: ['call'],
          chains: ['local'],
          contracts: [LOCAL_CONTRACT],
          function: MINT_TEXT,
          where: [{ arg: 'amount', gt: '10000' }],
        },
        {
          id: 'permits',
          description: 'Token permits wait for an approver of finance',
          effect: { hold: { required: 1, group: GROUP } },
          kinds: ['typed-data'],
          primaryTypes: ['Permit'],
        },
      ],
      // The contract's uniq, pinned: chain `local` has no RPC to read it from.
      uniqs: { [LOCAL_CONTRACT]: LOCAL_UNIQ },
      contractNames: { [LOCAL_CONTRACT]: CONTRACT_NAMES.mint, [PERMIT_TOKEN]: CONTRACT_NAMES.permit },
    });
    const hold = async (path: string, body: unknown) => {
      const held = await requester.post(`${base}${path}`, body);
      if (held.status !== 202) throw new Error(`${path}: not held: ${held.status} ${JSON.stringify(held.body)}`);
      return held.body.data.approval.id as string;
    };
    return {
      server,
      origin,
      consoleUrl: `${origin}/console/`,
      vaultId,
      walletAddress,
      // As an operator invites: the real command, on the running server's data directory.
      invite: async () => (await cliJson<{ url: string }>(['approvers', 'invite', '--vault', vaultId, '--group', GROUP], { VAULT_DATA_DIR: server.dataDir, VAULT_PUBLIC_URL: origin })).url,
      hold,
      holdSign: (amount) => hold('/sign', localSignBody(walletAddress, { args: [MINT_TO, amount] })),
      holdPermit: (value) => {
        const typedData = permit({ name: 'USD Coin', version: '2', chainId: 1, verifyingContract: PERMIT_TOKEN }, { owner: walletAddress, spender: PERMIT_SPENDER, value, nonce: 0n, deadline: 1_798_761_600n });
        return hold(`/wallets/${walletAddress}/sign-typed-data`, asJson(typedData));
      },
      approvalOverApi: async (id) => {
        const read = await requester.get(`${base}/approvals/${id}`);
        if (read.status !== 200) throw new Error(`reading approval ${id}: ${read.status} ${JSON.stringify(read.body)}`);
        return read.body.data;
      },
      close: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** A second contract of the signer's, named by the operator (`contractNames`) but pinned to no uniq. */
export const PAYROLL = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
export const PAYROLL_NAME = 'Payroll vault';

/**
 * Adds to the world's policy hold rules (for finance) that name no function and no contract: every
 * transaction, Permit2 batch permits, and any other call on `local`; and the operator's name of PAYROLL.
 * What they hold is decoded by nothing of the operator's: the console must show it all the same.
 */
export async function holdUndecoded(world: ConsoleWorld): Promise<void> {
  const policies = world.server.server.vault.managePolicies;
  const inForce = (await policies.export(world.vaultId))!;
  const hold = { hold: { required: 1, group: GROUP } } as const;
  await policies.apply(world.vaultId, {
    ...inForce,
    rules: [
      ...inForce.rules,
      { id: 'payments', description: 'Every transaction waits for finance', effect: hold, kinds: ['transaction'] },
      { id: 'batch-permits', description: 'Batch permits wait for finance', effect: hold, kinds: ['typed-data'], primaryTypes: ['PermitBatch'] },
      { id: 'other-calls', description: 'Other calls wait for finance', effect: hold, kinds: ['call'], chains: ['local'] },
    ],
    contractNames: { ...inForce.contractNames, [PAYROLL]: PAYROLL_NAME },
  });
}

/** A new approver in `browser`, invited and enrolled under `name`; resolves on the pending list. */
export async function enrolledApprover(world: ConsoleWorld, browser: Browser, name: string, o: { viewport?: { width: number; height: number } } = {}): Promise<ConsoleApprover> {
  const a = await newApprover(browser, o);
  await enrol(a, await world.invite(), name);
  return a;
}

/** From the pending list, the approval `id`'s detail view, its function and arguments on screen. */
export async function showApproval(a: ConsoleApprover, id: string): Promise<void> {
  await openApproval(a, id);
  await a.page.getByRole('table', { name: 'Arguments of mint' }).waitFor();
}
