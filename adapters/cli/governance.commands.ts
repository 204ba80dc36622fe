import type { Command } from 'commander';
import { remoteOperator } from './remote-operator.js';
import { readPrivateKeyFile } from './private-key-file.js';
import type { Governance, ProposalView } from '../../src/application/governance/governance.use-case.js';
import type { EntriesDiff } from '../../src/domain/governance.js';
import { OPERATOR } from '../../src/application/audit/audit-actor.js';
import { CliRefusal, note, print } from './output.js';

const withPersistence: typeof import('./operator-context.js').withPersistence = async (action) =>
  (await import('./operator-context.js')).withPersistence(action);
const governanceOf = async (c: import('inversify').Container): Promise<Governance> => c.get((await import('../../src/application/governance/governance.use-case.js')).Governance);

const commaList = (value: string) => value.split(',').map((v) => v.trim()).filter((v) => v !== '');

function describeProposal(p: ProposalView): string {
  const d = p.diff;
  const lines = [
    `proposal ${p.id} of vault ${p.vault}: ${p.status}`,
    `  document    ${p.documentHash}`,
    `  replaces    ${p.previous}`,
    `  signed by   ${p.approvals.length} of ${p.required}${p.approvals.length ? ` (${p.approvals.join(', ')})` : ''}`,
    ...(p.effectiveAt ? [`  effective   ${p.effectiveAt.toISOString()}`] : []),
    ...(p.rejectedBy ? [`  rejected by ${p.rejectedBy}`] : []),
    ...(d.policy.replaced ? [`  policy      ${d.policy.replaced}`] : []),
    ...d.policy.added.map((x) => `  + ${x}`),
    ...d.policy.removed.map((x) => `  - ${x}`),
    ...d.policy.changed.flatMap((x) => {
      const fields = (d.policy.fields ?? []).filter((f) => f.entry === x);
      return fields.length === 0 ? [`  ~ ${x}`] : fields.map((f) => `  ~ ${x}: ${f.field} ${JSON.stringify(f.from)} -> ${JSON.stringify(f.to)}`);
    }),
    ...d.governance.approversAdded.map((x) => `  + approver ${x}`),
    ...d.governance.approversRemoved.map((x) => `  - approver ${x}`),
    ...(d.governance.required ? [`  ~ required ${d.governance.required.from} -> ${d.governance.required.to}`] : []),
    ...(d.governance.delay ? [`  ~ delay ${d.governance.delay.from} -> ${d.governance.delay.to}`] : []),
    ...(d.liftedFreezes ? [`  ~ freezes lifted ${d.liftedFreezes.from} -> ${d.liftedFreezes.to}`] : []),
    ...entryLines('api key', d.apiKeys),
    ...entryLines('webhook', d.webhooks),
  ];
  return lines.join('\n');
}

/** Keys or webhook endpoints added, removed or changed by id; a state that starts governing them says so. */
function entryLines(name: string, d: EntriesDiff | undefined): string[] {
  if (d === undefined) return [];
  return [
    ...(d.nowGoverned ? [`  ${name}s now governed by the state`] : []),
    ...d.added.map((x) => `  + ${name} ${x}`),
    ...d.removed.map((x) => `  - ${name} ${x}`),
    ...d.changed.map((x) => `  ~ ${name} ${x}`),
  ];
}

/** The typed data signed with a private key file (0x + 64 hex, one line): the approver's own key, never the vault's. */
async function signWithKeyFile(file: string, typedData: ProposalView['typedData'] | ProposalView['rejectTypedData']): Promise<string> {
  const { Wallet } = await import('ethers');
  const wallet = new Wallet(readPrivateKeyFile(file));
  return wallet.signTypedData(typedData.domain, { ...typedData.types } as never, typedData.message);
}

type VoteOptions = { vault: string; id: string; keyFile?: string; signature?: string; printTypedData?: boolean; json?: boolean };

async function vote(o: VoteOptions, decision: 'approve' | 'reject'): Promise<void> {
  const given = [o.keyFile, o.signature, o.printTypedData].filter((x) => x !== undefined).length;
  if (given !== 1) throw new CliRefusal('give exactly one of --key-file, --signature, --print-typed-data', 'USAGE');
  await withPersistence(async (c) => {
    const governance = await governanceOf(c);
    const proposal = await governance.get(o.vault, o.id);
    // An approve signs the PolicyChange, a reject the Decision "reject": an approve signature is no reject.
    const typedData = decision === 'approve' ? proposal.typedData : proposal.rejectTypedData;
    if (o.printTypedData) {
      process.stdout.write(`${JSON.stringify(typedData, null, 2)}\n`);
      return;
    }
    const signature = o.signature ?? (await signWithKeyFile(o.keyFile!, typedData));
    const after = await governance.vote(o.vault, o.id, decision, signature, OPERATOR);
    print(!!o.json, { proposal: after }, () => describeProposal(after));
  });
}

/** `wallet-vault governance …` and `wallet-vault freeze|unfreeze` (docs/governance.md). */
export function registerGovernanceCommands(program: Command): void {
  const governance = program.command('governance').description("govern a vault's changes: M approvers sign each change (docs/governance.md)");
  governance
    .command('set')
    .description('make a vault governed (prints the pin for VAULT_GOVERNANCE_PINS), or propose new approvers, quorum or delay for a governed one')
    .requiredOption('--vault <vaultId>', 'the vault')
    .requiredOption('--required <M>', 'signatures a change needs (1 to the number of approvers)')
    .requiredOption('--approvers <addresses>', 'comma-separated Ethereum addresses of the approvers', commaList)
    .option('--delay <duration>', 'how long a change waits after its M-th signature: 0s, 30m, 1h, 2d (default 0s)')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; required: string; approvers: string[]; delay?: string; json?: boolean }) => {
      const required = /^\d+$/.test(o.required) ? Number(o.required) : NaN;
      const result = await withPersistence(async (c) => (await governanceOf(c)).set(o.vault, { required, approvers: o.approvers, delay: o.delay }, OPERATOR));
      for (const warning of result.warnings) note(`warning: ${warning}`);
      if ('genesis' in result) {
        print(!!o.json, { vault: o.vault, genesis: result.genesis.hash, pin: result.genesis.pin, state: result.genesis.state }, () =>
          [`vault ${o.vault} is governed (genesis ${result.genesis.hash}); add to the configuration of every instance:`, result.genesis.pin].join('\n'),
        );
      } else {
        print(!!o.json, { proposal: result.proposal }, () => `vault ${o.vault} is governed: the change is proposal ${result.proposal.id} (document ${result.proposal.documentHash})`);
      }
    });
  governance
    .command('show')
    .description('the governed state in force, its hash and the pin')
    .requiredOption('--vault <vaultId>', 'the vault')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; json?: boolean }) => {
      const view = await withPersistence(async (c) => (await governanceOf(c)).show(o.vault));
      print(!!o.json, view, () => {
        if (!view.governed) return `vault ${o.vault} is not governed${view.problem ? ` (${view.problem})` : ''}`;
        const g = view.state?.governance;
        return [
          `vault ${o.vault} is governed${view.problem ? `, and DOES NOT VERIFY: ${view.problem}` : ''}`,
          ...(g ? [`  approvers   ${g.approvers.join(', ')}`, `  required    ${g.required}`, `  delay       ${g.delay}`] : []),
          `  state       ${view.hash ?? '(unverified)'}`,
          `  frozen      ${view.frozen.freezes > view.frozen.lifted ? 'yes' : 'no'} (${view.frozen.freezes} freeze(s), ${view.frozen.lifted} lifted)`,
          `  pin         ${view.pin}${view.pinned ? '' : '  (NOT in this configuration: add it)'}`,
        ].join('\n');
      });
    });
  governance
    .command('unfreeze')
    .description('lift the freezes: a proposal on a governed vault (its quorum signs it), at once on an ungoverned one')
    .requiredOption('--vault <vaultId>', 'the vault')
    .option('--json', 'print JSON')
    .action(unfreeze);
  const proposals = governance.command('proposals').description("a governed vault's proposed changes");
  proposals
    .command('list')
    .requiredOption('--vault <vaultId>', 'the vault')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; json?: boolean }) => {
      const list = await withPersistence(async (c) => (await governanceOf(c)).list(o.vault));
      print(!!o.json, { vault: o.vault, proposals: list }, () => (list.length === 0 ? `vault ${o.vault} has no proposals` : list.map(describeProposal).join('\n\n')));
    });
  proposals
    .command('show')
    .requiredOption('--vault <vaultId>', 'the vault')
    .requiredOption('--id <id>', 'the proposal')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; id: string; json?: boolean }) => {
      const p = await withPersistence(async (c) => (await governanceOf(c)).get(o.vault, o.id));
      print(!!o.json, { proposal: p }, () =>
        [describeProposal(p), '  typed data to sign to approve (approve --print-typed-data prints it alone):', JSON.stringify(p.typedData), '  to reject (reject --print-typed-data):', JSON.stringify(p.rejectTypedData)].join('\n'),
      );
    });
  for (const decision of ['approve', 'reject'] as const) {
    proposals
      .command(decision)
      .description(`${decision} a proposal with an approver's EIP-712 signature (${decision === 'approve' ? 'its PolicyChange' : 'its Decision "reject"'})`)
      .requiredOption('--vault <vaultId>', 'the vault')
      .requiredOption('--id <id>', 'the proposal')
      .option('--key-file <file>', "sign with the approver's private key in this file (0x + 64 hex)")
      .option('--signature <0x…>', 'a signature made elsewhere (a hardware wallet) over the printed typed data')
      .option('--print-typed-data', 'print the EIP-712 typed data to sign, and do nothing else')
      .option('--json', 'print JSON')
      .action((o: VoteOptions) => vote(o, decision));
  }
  program
    .command('freeze')
    .description('freeze a vault at once: every signature refused (VAULT_FROZEN) on every instance; needs no quorum')
    .requiredOption('--vault <vaultId>', 'the vault')
    .option('--reason <text>', 'why, for the audit trail')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; reason?: string; json?: boolean }) => {
      const admin = await remoteOperator();
      const { freezes } = admin ? await admin.freeze(o.vault, o.reason) : await withPersistence(async (c) => (await governanceOf(c)).freeze(o.vault, o.reason ?? null, OPERATOR));
      print(!!o.json, { vault: o.vault, frozen: true, freezes }, () => `vault ${o.vault} frozen (${freezes} freeze(s)); lift with wallet-vault governance unfreeze --vault ${o.vault}`);
    });
  program
    .command('unfreeze')
    .description('the same as governance unfreeze')
    .requiredOption('--vault <vaultId>', 'the vault')
    .option('--json', 'print JSON')
    .action(unfreeze);
}

async function unfreeze(o: { vault: string; json?: boolean }): Promise<void> {
  const admin = await remoteOperator();
  const result: { proposal?: { id: string; documentHash: string }; lifted?: number } = admin
    ? await admin.unfreeze(o.vault)
    : await withPersistence(async (c) => (await governanceOf(c)).unfreeze(o.vault, OPERATOR));
  if (result.proposal !== undefined) {
    const { proposal } = result;
    print(!!o.json, { proposal }, () => `vault ${o.vault} is governed: unfreezing is proposal ${proposal.id} (document ${proposal.documentHash}); it takes effect once the approvers sign it`);
  } else {
    print(!!o.json, { vault: o.vault, lifted: result.lifted }, () => `vault ${o.vault}: ${result.lifted} freeze(s) lifted`);
  }
}
