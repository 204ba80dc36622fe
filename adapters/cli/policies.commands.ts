import type { Proposed } from '../../src/application/vaults/manage-policies.use-case.js';
import type { Command } from 'commander';
import { remoteOperator } from './remote-operator.js';
import type { ArgumentRuleInput } from '../../src/domain/argument-rule-input.js';
import { describeApprovalRule, type ApprovalRuleInput } from '../../src/domain/approval-rules.js';
import { describeArgumentRule } from '../../src/domain/argument-rules.js';
import { describeSignLimit, type SignLimitInput } from '../../src/domain/sign-limits.js';
import type { SignPolicy, SignPolicyInput } from '../../src/domain/sign-policy.js';
import { isPolicyDocument, type StoredPolicy } from '../../src/ports/policy-repository.port.js';
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../main/config.js';
import { CliRefusal, print } from './output.js';
import { describeDocument } from './policy-document.view.js';
import { addStandardSigningOptions, describeStandardSigning, standardSigningInput, type StandardSigningOptions } from './standard-signing.options.js';

const withPersistence: typeof import('./operator-context.js').withPersistence = async (action) =>
  (await import('./operator-context.js')).withPersistence(action);
const managePolicies = async () => (await import('../../src/application/vaults/manage-policies.use-case.js')).ManagePolicies;

/** `a, b,c` as ['a', 'b', 'c']; an empty value is an empty list, which the domain refuses by name. */
const commaList = (value: string) => value.split(',').map((v) => v.trim()).filter((v) => v !== '');

const describePolicy = (vaultId: string, policy: StoredPolicy | null) => {
  if (policy === null) return `vault ${vaultId} has no sign policy: every sign the scheme allows is allowed; standard signing (messages, typed data, transactions) is denied`;
  if (isPolicyDocument(policy)) return `policy document of vault ${vaultId} (policies export prints it as JSON):\n${describeDocument(policy)}`;
  const line = (label: string, values: readonly string[] | undefined) => `  ${label.padEnd(10)} ${values ? values.join(', ') : '(any)'}`;
  return [
    `sign policy of vault ${vaultId}:`,
    line('chains', policy.chains),
    line('contracts', policy.contracts),
    line('selectors', policy.selectors),
    line('senders', policy.senders),
    ...(policy.contracts ?? []).map((contract) => `  ${'uniq of'.padEnd(10)} ${contract} = ${uniqOf(policy, contract)}`),
    ...describeStandardSigning(policy),
    ...(policy.rules ?? []).map((rule) => `  ${'rule'.padEnd(10)} ${describeArgumentRule(rule)}`),
    ...(policy.limits ?? []).map((limit) => `  ${'limit'.padEnd(10)} ${describeSignLimit(limit)}`),
    ...(policy.approvals ?? []).map((rule) => `  ${'approval'.padEnd(10)} ${describeApprovalRule(rule)}`),
  ].join('\n');
};

const uniqOf = (policy: SignPolicy, contract: string) =>
  policy.uniqs?.[contract] ??
  (policy.trustRpcUniq?.includes(contract)
    ? "(not pinned, RPC TRUSTED: on chains with an RPC, signs whatever uniq the RPC answers; refused on local and chains without one)"
    : '(not pinned: refused; pin it with --contract-uniq, or trust the RPC with --trust-rpc-uniq)');

const printRemoved = (o: { vault: string; json?: boolean }, removed: number, policy: StoredPolicy | null, what = 'rule') =>
  print(!!o.json, { vault: o.vault, policy, removed }, () => `${removed} ${what}${removed === 1 ? '' : 's'} removed\n${describePolicy(o.vault, policy)}`);

/** A governed vault's edit made a proposal instead (docs/governance.md): printed as `{"proposal": {"id", "documentHash"}}`. */
function printedProposal<T>(json: boolean, vault: string, result: T | Proposed): result is Proposed {
  if (typeof result !== 'object' || result === null || !('proposal' in result)) return false;
  const { proposal } = result as Proposed;
  print(json, { proposal }, () =>
    `vault ${vault} is governed: the change is proposal ${proposal.id} (document ${proposal.documentHash}); it takes effect once the approvers sign it (wallet-vault governance proposals show --vault ${vault} --id ${proposal.id})`,
  );
  return true;
}

const repeatable = (value: string, previous: string[] = []) => [...previous, value];

/** `wallet-vault policies show|set|clear`: a vault's allow-lists for Sign. */
export function registerPolicyCommands(program: Command): void {
  const policies = program
    .command('policies')
    .description("manage a vault's sign policy (allow-lists of chains, contracts, selectors, senders; rules on arguments)");
  policies
    .command('show')
    .description("print a vault's sign policy")
    .requiredOption('--vault <vaultId>', 'vault whose policy to show')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const policy = await withPersistence((c) => c.get(ManagePolicies).show(o.vault));
      print(!!o.json, { vault: o.vault, policy }, () => describePolicy(o.vault, policy));
    });
  policies
    .command('export')
    .description("print the policy document in force (JSON; a policy set with the older commands as the document it is read as)")
    .requiredOption('--vault <vaultId>', 'vault whose policy to print')
    .action(async (o: { vault: string }) => {
      const admin = await remoteOperator();
      const document = admin ? (await admin.getPolicy(o.vault)).policy : await withPersistence(async (c) => c.get(await managePolicies()).export(o.vault));
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    });
  policies
    .command('apply')
    .description("replace a vault's policy with a policy document (docs/policy.md), validated whole first: a bad document changes nothing")
    .requiredOption('--vault <vaultId>', 'vault whose policy to replace')
    .requiredOption('--file <path>', 'the document, JSON ({"version": 2, "rules": [...], "limits": [...]})')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; file: string; json?: boolean }) => {
      const raw = await readDocument(o.file);
      const admin = await remoteOperator();
      if (admin) {
        if (typeof raw !== 'object' || raw === null) throw new CliRefusal(`--file: ${o.file} does not hold a JSON object (a policy document, docs/policy.md)`, 'INVALID_ARGUMENT');
        const answer = await admin.setPolicy(o.vault, raw);
        if (answer.proposal !== undefined && printedProposal(!!o.json, o.vault, { proposal: answer.proposal })) return;
        print(!!o.json, { vault: o.vault, policy: answer.policy }, () => `policy document of vault ${o.vault} applied as a named operator:\n${JSON.stringify(answer.policy, null, 2)}`);
        return;
      }
      const ManagePolicies = await managePolicies();
      const edited = await withPersistence((c) => c.get(ManagePolicies).apply(o.vault, raw));
      if (printedProposal(!!o.json, o.vault, edited)) return;
      const document = edited;
      print(!!o.json, { vault: o.vault, policy: document }, () => `policy document of vault ${o.vault} applied:\n${describeDocument(document)}`);
    });
  const set = policies
    .command('set')
    .description('replace the sign policy of a vault; a list not given allows everything of its kind')
    .requiredOption('--vault <vaultId>', 'vault whose policy to set')
    .option('--chains <chains>', 'comma-separated chain names (ethereum, sepolia, bsc, ...)', commaList)
    .option('--contracts <addresses>', 'comma-separated contract addresses', commaList)
    .option('--selectors <selectors>', 'comma-separated function selectors (0x + 8 hex)', commaList)
    .option('--senders <addresses>', 'comma-separated sender addresses', commaList)
    .option(
      '--contract-uniq <contract=uniq>',
      'pin the uniq a listed contract signs with (repeatable); each listed contract needs a pin, or --trust-rpc-uniq',
      repeatable,
    )
    .option(
      '--trust-rpc-uniq <contract>',
      "take a listed, unpinned contract's uniq from the chain's RPC as it answers (repeatable): whoever controls the RPC then chooses what is signed",
      repeatable,
    );
  addStandardSigningOptions(set)
    .option('--json', 'print JSON')
    .action(async (o: Omit<SignPolicyInput, 'contractUniqs'> & StandardSigningOptions & { contractUniq?: string[]; trustRpcUniq?: string[]; vault: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const input: SignPolicyInput = {
        chains: o.chains,
        contracts: o.contracts,
        selectors: o.selectors,
        senders: o.senders,
        contractUniqs: o.contractUniq,
        trustRpcUniq: o.trustRpcUniq,
        ...standardSigningInput(o),
      };
      const edited = await withPersistence((c) => c.get(ManagePolicies).set(o.vault, input));
      if (printedProposal(!!o.json, o.vault, edited)) return;
      const policy = edited;
      print(!!o.json, { vault: o.vault, policy }, () => describePolicy(o.vault, policy));
    });
  policies
    .command('clear')
    .description('remove the sign policy of a vault (every sign the scheme allows is allowed again)')
    .requiredOption('--vault <vaultId>', 'vault whose policy to remove')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const edited = await withPersistence((c) => c.get(ManagePolicies).clear(o.vault));
      if (printedProposal(!!o.json, o.vault, edited)) return;
      const { cleared } = edited;
      print(!!o.json, { vault: o.vault, policy: null, cleared }, () =>
        cleared ? `sign policy of vault ${o.vault} removed` : `vault ${o.vault} had no sign policy`,
      );
    });
  registerRuleCommands(policies);
  registerLimitCommands(policies);
  registerApprovalRuleCommands(policies);
}

/** The document file as JSON; a file that cannot be read or parsed is a usage error naming it. */
async function readDocument(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`--file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConfigError(`--file: ${file} is not JSON (${(error as Error).message})`);
  }
}

/** `wallet-vault policies approvals add|remove|clear`: signs held until a quorum of approver keys approves them. */
function registerApprovalRuleCommands(policies: Command): void {
  const approvals = policies
    .command('approvals')
    .description("manage a vault's approval rules: signs they match wait for M approver keys (four eyes; see docs/api.md#approvals-four-eyes)");
  approvals
    .command('add')
    .description('add an approval rule; with no filter it holds every sign of the vault, each filter narrows it')
    .requiredOption('--vault <vaultId>', 'vault whose policy gets the rule')
    .requiredOption('--required <m>', 'approvals needed, 1 to 10 (approver keys, never the requesting key)')
    .option('--chains <chains>', 'only signs on these chains (comma-separated)', commaList)
    .option('--contracts <addresses>', 'only signs for these contracts (comma-separated)', commaList)
    .option('--function <function>', 'only signs of this function: its signature text (names in it let --arg name arguments) or a selector')
    .option('--group <group>', 'only votes of approver keys of this group count (api-keys create --group)')
    .option('--arg <arg>', 'with one of --gt, --gte, --lt, --lte: only signs whose argument is past the bound (needs --function)')
    .option('--gt <integer>', 'held when the argument is greater than this')
    .option('--gte <integer>', 'held when the argument is at least this')
    .option('--lt <integer>', 'held when the argument is less than this')
    .option('--lte <integer>', 'held when the argument is at most this')
    .option('--expires-in <duration>', 'how long a held sign waits for its quorum: 30m, 24h, 7d (default 24h, at most 31d)')
    .option('--json', 'print JSON')
    .action(async (o: ApprovalRuleInput & { vault: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const { vault, json, ...input } = o;
      const edited = await withPersistence((c) => c.get(ManagePolicies).addApprovalRule(vault, input));
      if (printedProposal(!!json, vault, edited)) return;
      const { rule, policy } = edited;
      print(!!json, { vault, rule, policy }, () => `approval rule ${rule.id} added\n${describePolicy(vault, policy)}`);
    });
  approvals
    .command('remove')
    .description('remove one approval rule (signs it already holds keep waiting for their quorum)')
    .requiredOption('--vault <vaultId>', 'vault whose rule to remove')
    .requiredOption('--id <id>', 'the rule, as policies show lists it (a1, a2, ...)')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; id: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const edited = await withPersistence((c) => c.get(ManagePolicies).removeApprovalRules(o.vault, o.id));
      if (printedProposal(!!o.json, o.vault, edited)) return;
      const { removed, policy } = edited;
      printRemoved(o, removed, policy, 'approval rule');
    });
  approvals
    .command('clear')
    .description("remove every approval rule of a vault's policy (its lists, rules and limits stay)")
    .requiredOption('--vault <vaultId>', 'vault whose approval rules to remove')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const edited = await withPersistence((c) => c.get(ManagePolicies).removeApprovalRules(o.vault, null));
      if (printedProposal(!!o.json, o.vault, edited)) return;
      const { removed, policy } = edited;
      printRemoved(o, removed, policy, 'approval rule');
    });
}

type LimitTargetOptions = Pick<SignLimitInput, 'each' | 'wallet' | 'contract' | 'function'>;

/** The options naming what a limit counts: exactly one of them, for add; any one, for remove. */
const withLimitTarget = (command: Command): Command =>
  command
    .option('--each <scope>', 'a count for each wallet, each contract or each function: wallet, contract or function')
    .option('--wallet <address>', 'a count for this wallet (signer) only')
    .option('--contract <address>', 'a count for this contract only')
    .option('--function <function>', 'a count for this function only: a selector (0x + 8 hex) or its signature text');

const limitTarget = (o: LimitTargetOptions): LimitTargetOptions => ({ each: o.each, wallet: o.wallet, contract: o.contract, function: o.function });

/** `wallet-vault policies limits add|remove|clear`: how many signs per rolling window, across all instances. */
function registerLimitCommands(policies: Command): void {
  const limits = policies
    .command('limits')
    .description("manage a vault's limits on signs per rolling window, counted in the database for all instances (see docs/security.md)");
  withLimitTarget(
    limits
      .command('add')
      .description('add a limit (one of the same target and window is replaced); a sign over any limit is refused with 429 and Retry-After')
      .requiredOption('--vault <vaultId>', 'vault whose policy gets the limit')
      .requiredOption('--max-signs <n>', 'signs allowed in any window')
      .requiredOption('--per <window>', 'the rolling window: a whole number and a unit, 30s, 10m, 1h, 1d (at most 31d)'),
  )
    .option('--json', 'print JSON')
    .action(async (o: LimitTargetOptions & { vault: string; maxSigns: string; per: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const input: SignLimitInput = { ...limitTarget(o), maxSigns: o.maxSigns, per: o.per };
      const edited = await withPersistence((c) => c.get(ManagePolicies).addLimit(o.vault, input));
      if (printedProposal(!!o.json, o.vault, edited)) return;
      const policy = edited;
      print(!!o.json, { vault: o.vault, policy }, () => describePolicy(o.vault, policy));
    });
  withLimitTarget(
    limits
      .command('remove')
      .description('remove the limits of one target (every window)')
      .requiredOption('--vault <vaultId>', 'vault whose limits to remove'),
  )
    .option('--json', 'print JSON')
    .action(async (o: LimitTargetOptions & { vault: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const edited = await withPersistence((c) => c.get(ManagePolicies).removeLimits(o.vault, limitTarget(o)));
      if (printedProposal(!!o.json, o.vault, edited)) return;
      const { removed, policy } = edited;
      printRemoved(o, removed, policy, 'limit');
    });
  limits
    .command('clear')
    .description("remove every limit of a vault's policy (its lists and rules stay)")
    .requiredOption('--vault <vaultId>', 'vault whose limits to remove')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const edited = await withPersistence((c) => c.get(ManagePolicies).removeLimits(o.vault, null));
      if (printedProposal(!!o.json, o.vault, edited)) return;
      const { removed, policy } = edited;
      printRemoved(o, removed, policy, 'limit');
    });
}

/** `wallet-vault policies rules add|remove|clear`: rules on the decoded arguments of a function. */
function registerRuleCommands(policies: Command): void {
  const rules = policies
    .command('rules')
    .description("manage a vault's rules on decoded arguments (checked on the parsed arguments before a sign; see docs/security.md)");
  rules
    .command('add')
    .description('add a rule per operator given, on one argument of one function; all rules of a function must hold')
    .requiredOption('--vault <vaultId>', 'vault whose policy gets the rules')
    .requiredOption(
      '--function <function>',
      'a selector (0x + 8 hex) or the signature text as the contract declares it, signature parameter included; names in it let --arg name arguments',
    )
    .requiredOption('--arg <arg>', 'the argument: a name or dotted path (order.amount), a position (1, 0.2) or args[0][2]; arrays on the way: every element')
    .option('--eq <value>', 'the argument must equal this value')
    .option('--in <values>', 'comma-separated values the argument must be one of', commaList)
    .option('--lte <integer>', 'integer argument at most this (decimal or 0x hex)')
    .option('--gte <integer>', 'integer argument at least this (decimal or 0x hex)')
    .option('--address-in <addresses>', 'comma-separated addresses the address argument must be one of', commaList)
    .option('--bytes-prefix <hex>', 'bytes argument must start with these bytes (0x-prefixed hex)')
    .option('--max-length <n>', 'bytes, string (UTF-8 bytes) or dynamic array argument at most this long')
    .option('--json', 'print JSON')
    .action(async (o: ArgumentRuleInput & { vault: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const { vault, json, ...input } = o;
      const edited = await withPersistence((c) => c.get(ManagePolicies).addRules(vault, input));
      if (printedProposal(!!json, vault, edited)) return;
      const policy = edited;
      print(!!json, { vault, policy }, () => describePolicy(vault, policy));
    });
  rules
    .command('remove')
    .description("remove a function's rules, or only those on one of its arguments")
    .requiredOption('--vault <vaultId>', 'vault whose rules to remove')
    .requiredOption('--function <function>', 'the function as a selector or signature text')
    .option('--arg <arg>', 'only the rules on this argument (as for add)')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; function: string; arg?: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const edited = await withPersistence((c) => c.get(ManagePolicies).removeRules(o.vault, { function: o.function, arg: o.arg }));
      if (printedProposal(!!o.json, o.vault, edited)) return;
      const { removed, policy } = edited;
      printRemoved(o, removed, policy);
    });
  rules
    .command('clear')
    .description("remove every rule on arguments of a vault's policy (its lists stay)")
    .requiredOption('--vault <vaultId>', 'vault whose rules to remove')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const edited = await withPersistence((c) => c.get(ManagePolicies).removeRules(o.vault, {}));
      if (printedProposal(!!o.json, o.vault, edited)) return;
      const { removed, policy } = edited;
      printRemoved(o, removed, policy);
    });
}
