import type { Command } from 'commander';
import type { SignPolicy, SignPolicyInput } from '../../src/domain/sign-policy.js';
import { print } from './output.js';
import { addStandardSigningOptions, describeStandardSigning, standardSigningInput, type StandardSigningOptions } from './standard-signing.options.js';

const withPersistence: typeof import('./operator-context.js').withPersistence = async (action) =>
  (await import('./operator-context.js')).withPersistence(action);
const managePolicies = async () => (await import('../../src/application/manage-policies.use-case.js')).ManagePolicies;

/** `a, b,c` as ['a', 'b', 'c']; an empty value is an empty list, which the domain refuses by name. */
const commaList = (value: string) => value.split(',').map((v) => v.trim()).filter((v) => v !== '');

const describePolicy = (vaultId: string, policy: SignPolicy | null) => {
  if (policy === null) return `vault ${vaultId} has no sign policy: every sign the scheme allows is allowed; standard signing (messages, typed data, transactions) is denied`;
  const line = (label: string, values: readonly string[] | undefined) => `  ${label.padEnd(10)} ${values ? values.join(', ') : '(any)'}`;
  return [
    `sign policy of vault ${vaultId}:`,
    line('chains', policy.chains),
    line('contracts', policy.contracts),
    line('selectors', policy.selectors),
    line('senders', policy.senders),
    ...(policy.contracts ?? []).map((contract) => `  ${'uniq of'.padEnd(10)} ${contract} = ${uniqOf(policy, contract)}`),
    ...describeStandardSigning(policy),
  ].join('\n');
};

const uniqOf = (policy: SignPolicy, contract: string) =>
  policy.uniqs?.[contract] ??
  (policy.trustRpcUniq?.includes(contract)
    ? "(not pinned, RPC TRUSTED: on chains with an RPC, signs whatever uniq the RPC answers; refused on local and chains without one)"
    : '(not pinned: refused; pin it with --contract-uniq, or trust the RPC with --trust-rpc-uniq)');

const repeatable = (value: string, previous: string[] = []) => [...previous, value];

/** `wallet-vault policies show|set|clear`: a vault's allow-lists for Sign. */
export function registerPolicyCommands(program: Command): void {
  const policies = program
    .command('policies')
    .description("manage a vault's sign policy (allow-lists of chains, contracts, selectors, senders)");
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
      const policy = await withPersistence((c) => c.get(ManagePolicies).set(o.vault, input));
      print(!!o.json, { vault: o.vault, policy }, () => describePolicy(o.vault, policy));
    });
  policies
    .command('clear')
    .description('remove the sign policy of a vault (every sign the scheme allows is allowed again)')
    .requiredOption('--vault <vaultId>', 'vault whose policy to remove')
    .option('--json', 'print JSON')
    .action(async (o: { vault: string; json?: boolean }) => {
      const ManagePolicies = await managePolicies();
      const { cleared } = await withPersistence((c) => c.get(ManagePolicies).clear(o.vault));
      print(!!o.json, { vault: o.vault, policy: null, cleared }, () =>
        cleared ? `sign policy of vault ${o.vault} removed` : `vault ${o.vault} had no sign policy`,
      );
    });
}
