import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Container } from 'inversify';
import type { ApiKeyRole } from '../../src/domain/api-key-access.js';
import { APPROVAL_READERS, APPROVAL_STATUSES, type Approval, type ApprovalStatus } from '../../src/domain/approval.js';
import type { KeyLabels, ShownPolicy } from '../../src/application/approvals/approval-reads.js';
import type { ApprovalPresentation } from '../../src/application/approvals/approval-presenter.js';
import { decisionTypedData, type DecisionKind } from '../../src/domain/signed-decisions.js';
import { readPrivateKeyFile } from './private-key-file.js';
import { CliRefusal, print } from './output.js';

const operatorContext = async () => import('./operator-context.js');
// Loaded when a command runs: `--help` reads none of them.
const approvalsUseCases = async () => ({
  ...(await import('../../src/application/approvals/list-approvals.use-case.js')),
  ...(await import('../../src/application/approvals/get-approval.use-case.js')),
  ...(await import('../../src/application/approvals/vote-on-approval.use-case.js')),
});
const approvalPresenter = async () => import('../../src/application/approvals/approval-presenter.js');
const useCasesOf = async () => {
  const [{ Authenticate }, { Authorize }] = await Promise.all([import('../../src/application/access/authenticate.use-case.js'), import('../../src/application/access/authorize.use-case.js')]);
  return { Authenticate, Authorize };
};

/** The environment variable an approver's API key is read from (never from the command line, where `ps` shows it). */
export const API_KEY_ENV = 'WALLET_VAULT_API_KEY';

interface KeyOptions {
  readonly vault: string;
  readonly apiKeyFile?: string;
  readonly json?: boolean;
}

/** The caller's API key: `--api-key-file` (its first line), else WALLET_VAULT_API_KEY. */
function apiKeyOf(o: KeyOptions): string {
  if (o.apiKeyFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(o.apiKeyFile, 'utf8');
    } catch (error) {
      throw new CliRefusal(`--api-key-file: cannot read ${o.apiKeyFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'API_KEY_FILE');
    }
    const key = text.split(/\r?\n/, 1)[0]!.trim();
    if (key === '') throw new CliRefusal(`--api-key-file: ${o.apiKeyFile} holds no API key`, 'API_KEY_FILE');
    return key;
  }
  const key = process.env[API_KEY_ENV]?.trim();
  if (!key) throw new CliRefusal(`an API key is needed: set ${API_KEY_ENV} or pass --api-key-file PATH (never the key itself on the command line)`, 'UNAUTHENTICATED');
  return key;
}

/**
 * Authenticates the key as an HTTP caller of the vault would be (the same refusals, a network-bound key
 * refused: the command has no client address), checks its role, then runs `action` as that key.
 */
async function asApiKey<T>(container: Container, o: KeyOptions, role: ApiKeyRole | readonly ApiKeyRole[], operation: string, action: (principal: import('../../src/application/access/principal.js').Principal) => Promise<T>): Promise<T> {
  const { Authenticate, Authorize } = await useCasesOf();
  const principal = await container.get(Authenticate).execute(apiKeyOf(o), o.vault, 'command line');
  await container.get(Authorize).execute(principal, role, `wallet-vault approvals ${operation}`);
  return action(principal);
}

const describeApproval = (a: Approval): string => {
  return `${a.id}  ${a.status.padEnd(8)} ${a.approvals}/${a.required}${a.group ? ` (group ${a.group})` : ''}  ${a.chain} ${a.contract} ${a.functionSignature}  expires ${a.expires.toISOString()}`;
};

/** Why a pending request with its quorum is not released (the presenter's blockedBy), under its line; nothing when none. */
const blockedLines = (b: ApprovalPresentation['blockedBy']): string[] =>
  b === null ? [] : [`  approved, but not released: ${b.reason} (${b.code} at ${b.at}): ${b.message}`];

const withKey = (command: Command): Command =>
  command
    .requiredOption('--vault <vaultId>', 'the vault of the approval')
    .option('--api-key-file <path>', `a file holding the API key (else ${API_KEY_ENV}); never the key on the command line`)
    .option('--json', 'print JSON');

/** `wallet-vault approvals list|show|approve|reject`: signs held for a quorum, with an API key of the vault. */
export function registerApprovalCommands(program: Command): void {
  const approvals = program
    .command('approvals')
    .description(`signs held for a quorum of approver keys (four eyes): read with a signer, reader or approver key, vote with an approver key (${API_KEY_ENV} or --api-key-file)`);
  withKey(approvals.command('list').description("list a vault's approvals, oldest first"))
    .option('--status <status>', `only approvals of this status: ${APPROVAL_STATUSES.join(', ')}`)
    .action(async (o: KeyOptions & { status?: string }) => {
      if (o.status !== undefined && !(APPROVAL_STATUSES as readonly string[]).includes(o.status)) {
        throw new CliRefusal(`--status: ${JSON.stringify(o.status)} is not one of ${APPROVAL_STATUSES.join(', ')}`, 'INVALID_ARGUMENT');
      }
      const { ListApprovals, GetApproval } = await approvalsUseCases();
      const { page, shown, labels } = await (await operatorContext()).withPersistence((c) =>
        asApiKey(c, o, APPROVAL_READERS, 'list', async (p) => ({
          page: await c.get(ListApprovals).execute(p.vaultId, { status: o.status as ApprovalStatus | undefined, count: 1000 }),
          shown: await c.get(GetApproval).shownPolicy(p.vaultId),
          labels: await c.get(GetApproval).keyLabels(p.vaultId),
        })),
      );
      const { presentApprovalOf } = await approvalPresenter();
      const shownPage = page.page.map((a) => presentApprovalOf(a, shown, labels));
      print(!!o.json, { count: page.count, page: shownPage }, () => page.page.map((a, i) => [describeApproval(a), ...blockedLines(shownPage[i]!.blockedBy)].join('\n')).join('\n') || '(no approvals)');
    });
  withKey(approvals.command('show').description('show one approval: what is asked (decoded), the votes, and once approved the Sign result').argument('<id>', 'the approval'))
    .action(async (id: string, o: KeyOptions) => {
      const { GetApproval } = await approvalsUseCases();
      const { approval, shown, labels } = await (await operatorContext()).withPersistence((c) =>
        asApiKey(c, o, APPROVAL_READERS, 'show', async (p) => ({
          approval: await c.get(GetApproval).execute(p.vaultId, id),
          shown: await c.get(GetApproval).shownPolicy(p.vaultId),
          labels: await c.get(GetApproval).keyLabels(p.vaultId),
        })),
      );
      await printApproval(approval, !!o.json, shown, labels);
    });
  for (const vote of ['approve', 'reject'] as const) {
    withKey(
      approvals
        .command(vote)
        .description(
          (vote === 'approve'
            ? 'approve a held sign with an approver key (never the requesting key); the approval completing the quorum makes the signature'
            : 'reject a held sign with an approver key: it is never signed') +
            ". A key with an approver address votes signed: --key-file, or --print-typed-data for an external wallet then --signature",
        )
        .argument('<id>', 'the approval'),
    )
      .option('--key-file <path>', "a file (0600) holding the approver address's private key as 64 hex digits: signs the vote's EIP-712 Decision")
      .option('--print-typed-data', 'print the EIP-712 typed data of this vote (eth_signTypedData_v4) for an external wallet to sign; votes nothing')
      .option('--signature <0x…>', 'the EIP-712 Decision signature an external wallet made (see --print-typed-data)')
      .action(async (id: string, o: VoteOptions) => {
        const ways = [o.keyFile !== undefined, o.printTypedData === true, o.signature !== undefined].filter(Boolean).length;
        if (ways > 1) throw new CliRefusal('--key-file, --print-typed-data and --signature: give one at most', 'INVALID_ARGUMENT');
        const { GetApproval, VoteOnApproval } = await approvalsUseCases();
        if (o.printTypedData) {
          const typed = await (await operatorContext()).withPersistence((c) =>
            asApiKey(c, o, 'approver', vote, async (p) => decisionOf(await c.get(GetApproval).execute(p.vaultId, id), vote)),
          );
          // JSON whatever --json says: what a wallet takes (the `types` without EIP712Domain, as ethers and viem take them).
          process.stdout.write(`${JSON.stringify(typed, null, 2)}\n`);
          return;
        }
        const privateKey = o.keyFile === undefined ? undefined : readPrivateKeyFile(o.keyFile);
        // Approving may release the signature, so the vote is built with the sign path and its key stores:
        // a reject as well (the container without key stores cannot make a VoteOnApproval).
        const approval = await (await operatorContext()).withKeyStores((c) =>
          asApiKey(c, o, 'approver', vote, async (principal) => {
            let signature = o.signature;
            if (privateKey !== undefined) {
              const typed = decisionOf(await c.get(GetApproval).execute(principal.vaultId, id), vote);
              const { Wallet } = await import('ethers');
              signature = await new Wallet(privateKey).signTypedData(typed.domain, typed.types as never, typed.message);
            }
            const voted = await c.get(VoteOnApproval).execute({ principal, id, vote, ...(signature === undefined ? {} : { signature }) });
            return { approval: voted, shown: await c.get(GetApproval).shownPolicy(principal.vaultId), labels: await c.get(GetApproval).keyLabels(principal.vaultId) };
          }),
        );
        await printApproval(approval.approval, !!o.json, approval.shown, approval.labels);
      });
  }
}

interface VoteOptions extends KeyOptions {
  readonly keyFile?: string;
  readonly printTypedData?: boolean;
  readonly signature?: string;
}

/** The typed data a vote signs: the approval's Decision (decisions.md "Signed decisions"). */
const decisionOf = (approval: Approval, vote: DecisionKind) => decisionTypedData(approval.vaultId, approval.id, approval.requestHash, vote);

const resultLine = (r: object): string =>
  'submissionHash' in r ? `submissionHash ${String(r.submissionHash)}` : 'hash' in r ? `transaction ${String(r.hash)}` : `signature ${String((r as { signature: string }).signature)}`;

/** `15 000 TUSD (15000000000)`, `"0x…" (Payroll (Acme GmbH))`: the value as signed with the policy's units or name beside it. */
const shownArgument = (a: { value: unknown; addressName?: string; tokenAmount?: { text: string } }): string =>
  a.tokenAmount !== undefined ? a.tokenAmount.text : `${JSON.stringify(a.value)}${a.addressName === undefined ? '' : ` (${a.addressName})`}`;

/** The simulation's outflows, a token's in its units where the policy names it. */
const simulationLines = (s: ApprovalPresentation['simulation']): string[] =>
  s === null
    ? []
    : [
        `  simulated on ${s.chain} (${s.method})`,
        ...(s.nativeOutflow === undefined ? [] : [`    native outflow ${s.nativeOutflow} wei`]),
        ...Object.entries(s.tokenOutflow ?? {}).map(([token, base]) => `    outflow of ${token} ${s.tokenOutflowUnits?.[token]?.text ?? base}`),
      ];

/** `shown`: the policy in force (the operator's contract names beside a call's contract, its uniq pins). */
async function printApproval(approval: Approval, json: boolean, shown: ShownPolicy, labels: KeyLabels): Promise<void> {
  const { presentApprovalOf } = await approvalPresenter();
  const view = presentApprovalOf(approval, shown, labels);
  const labelOf = (label: string | undefined) => (label === undefined ? '' : ` (${JSON.stringify(label)})`);
  print(json, view, () =>
    [
      describeApproval(approval),
      ...blockedLines(view.blockedBy),
      ...('contractName' in view.request && view.request.contractName !== undefined ? [`  contract ${view.request.contract} is the operator's ${JSON.stringify(view.request.contractName)}`] : []),
      `  requested by ${view.requester}${labelOf(view.requesterLabel)} at ${view.created} (rule ${view.rule})`,
      ...('arguments' in view.request
        ? [
            `  sender ${view.request.sender}`,
            // The signature binds the uniq, not the contract: what it is and what the policy pins it to, before the arguments.
            ...(view.request.uniq === undefined ? [] : [`  uniq ${view.request.uniq}`]),
            ...(view.request.signer === undefined ? [] : [`  signer ${view.request.signer}`]),
            ...(view.request.uniqBinding?.warning ? [`  WARNING: ${view.request.uniqBinding.warning}`] : []),
            ...view.request.arguments.map((a) => `  ${a.name} (${a.type}) = ${shownArgument(a)}`),
          ]
        : [
            `  ${view.kind} of wallet ${view.request.wallet}`,
            ...(view.request.tokenCall === undefined
              ? []
              : [
                  `  ${view.request.tokenCall.function} of ${view.request.tokenCall.symbol} (${view.request.tokenCall.token})`,
                  ...view.request.tokenCall.arguments.map((a) => `  ${a.name} (${a.type}) = ${shownArgument(a)}`),
                ]),
            `  ${JSON.stringify(view.request.message ?? view.request.typedData ?? view.request.transaction)}`,
          ]),
      `  requestHash ${view.requestHash}`,
      ...view.votes.map((v) => `  ${v.vote} by ${v.by}${labelOf(v.byLabel)} at ${v.at}${v.signature === null ? ' (unsigned)' : ' (signed)'}`),
      ...simulationLines(view.simulation),
      ...(view.result === null ? [] : [`  signed: ${resultLine(view.result)}`]),
    ].join('\n'),
  );
}
