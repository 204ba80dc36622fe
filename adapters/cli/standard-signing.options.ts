import type { Command } from 'commander';
import { DEFAULT_MAX_FEE_WEI, type StandardSignPolicy, type StandardSignPolicyInput } from '../../src/domain/standard-sign-policy.js';

/** `a, b,c` as ['a', 'b', 'c']; an empty value is an empty list, which the domain refuses by name. */
const commaList = (value: string) => value.split(',').map((v) => v.trim()).filter((v) => v !== '');
const repeatable = (value: string, previous: string[] = []) => [...previous, value];

/** The options of `policies set` for standard signing, as commander parses them. */
export interface StandardSigningOptions {
  readonly txChainIds?: string[];
  readonly txTo?: string[];
  readonly txSelectors?: string[];
  readonly txMaxValue?: string;
  readonly txMaxFee?: string;
  readonly txContractCreation?: boolean;
  readonly typedDataContracts?: string[];
  readonly typedDataName?: string[];
  readonly messages?: boolean;
}

/** Standard signing is denied by default: these options are what allows it (docs/standard-signing.md). */
export function addStandardSigningOptions(command: Command): Command {
  return command
    .option('--tx-chain-ids <ids>', 'allow transactions on these chain ids (comma-separated); without it no transaction is signed', commaList)
    .option('--tx-to <addresses>', 'recipients a transaction may go to (comma-separated); without it none', commaList)
    .option('--tx-selectors <selectors>', 'function selectors a transaction\'s data may start with (comma-separated); without it only transactions without data', commaList)
    .option('--tx-max-value <wei>', 'the most wei one transaction may carry (default 0)')
    .option('--tx-max-fee <wei>', `the most wei one transaction may pay in fees, gas × maxFeePerGas or gasPrice (default ${DEFAULT_MAX_FEE_WEI}: 0.01 of the native unit)`)
    .option('--tx-contract-creation', 'allow transactions without `to` (contract creation)')
    .option('--typed-data-contracts <chainId:address>', 'EIP-712 domains to sign typed data for, as chainId:verifyingContract (comma-separated); without it no typed data', commaList)
    .option('--typed-data-name <chainId:address=name>', 'require this domain name for a listed typed-data domain (repeatable)', repeatable)
    .option('--messages', 'allow EIP-191 personal messages');
}

export function standardSigningInput(o: StandardSigningOptions): StandardSignPolicyInput {
  return {
    txChainIds: o.txChainIds,
    txTo: o.txTo,
    txSelectors: o.txSelectors,
    txMaxValue: o.txMaxValue,
    txMaxFee: o.txMaxFee,
    txContractCreation: o.txContractCreation,
    typedDataContracts: o.typedDataContracts,
    typedDataNames: o.typedDataName,
    messages: o.messages,
  };
}

/** The lines `policies show` prints for standard signing; what is not allowed says so. */
export function describeStandardSigning(policy: StandardSignPolicy): string[] {
  const tx = policy.transactions;
  const line = (label: string, value: string) => `  ${label.padEnd(21)} ${value}`;
  const lines = ['standard signing (deny by default):', line('messages', policy.messages ? 'allowed' : 'denied')];
  if (tx === undefined) lines.push(line('transactions', 'denied'));
  else {
    lines.push(
      line('tx chain ids', tx.chainIds.join(', ')),
      line('tx to', tx.to ? tx.to.join(', ') : '(none)'),
      line('tx selectors', tx.selectors ? tx.selectors.join(', ') : '(none: only transactions without data)'),
      line('tx max value (wei)', tx.maxValue ?? '0'),
      line('tx max fee (wei)', tx.maxFee ?? `${DEFAULT_MAX_FEE_WEI} (default)`),
      line('tx contract creation', tx.contractCreation ? 'allowed' : 'denied'),
    );
  }
  if (policy.typedData === undefined) lines.push(line('typed data', 'denied'));
  for (const d of policy.typedData ?? []) {
    lines.push(line('typed data domain', `${d.chainId}:${d.verifyingContract}${d.name === undefined ? ' (any name)' : ` name ${JSON.stringify(d.name)}`}`));
  }
  return lines;
}
