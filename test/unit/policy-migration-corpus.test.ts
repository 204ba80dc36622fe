import { describe, expect, it } from 'vitest';
import { readingPayloads } from '../support/read-payloads.js';
import { CHAINS } from '../../src/domain/chains.js';
import { parseArgumentRules } from '../../src/domain/argument-rule-input.js';

import { parseApprovalRule, type ApprovalRule } from '../../src/domain/approval-rules.js';
import { documentFromLegacy } from '../../src/domain/policy/legacy-policy.js';
import { parsePolicyDocument } from '../../src/domain/policy/policy-document.parse.js';
import { evaluatePolicy } from '../../src/domain/policy/policy-evaluation.js';
import { NO_FACTS, type SignIntent } from '../../src/domain/policy/sign-intent.js';
import { parseSignPolicy, pinnedUniqViolation, unpinnedViolation, type SignPolicy, type SignPolicyInput } from '../../src/domain/sign-policy.js';
import { coerceArguments } from '../../src/domain/signing/argument-coercion.js';
import { parseFunctionText } from '../../src/domain/signing/function-signature.js';

import { TEST_CHAIN_IDS } from '../support/policy-gate.js';
import { approvalRuleFor, argumentRuleViolation, messageViolation, signPolicyViolation, transactionViolation, typedDataViolation } from '../support/legacy-decisions.js';

/**
 * Every policy stored before the one document is read as the document documentFromLegacy makes of it.
 * This holds the two side by side over a corpus of policies and requests: the old decision (the
 * allow-lists, argument rules, approval rules and standard-signing switches, as the routes applied them)
 * against the one evaluator's over the migrated document. Calls decide exactly the same (allow, deny,
 * hold and its quorum). Messages, typed data and transactions decide the same, but for the fix of issue
 * 34: an approval rule that matches one of them now holds it (before, only Sign was held), never more.
 */
const payloads = readingPayloads();
const A = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const B = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const C = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';
const S1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const S2 = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const WALLET = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const U1 = `0x${'11'.repeat(32)}`;
const U2 = `0x${'22'.repeat(32)}`;
const SIG = '(bytes32 nonce, bytes32 r, bytes32 s, uint8 v) sig';
const MINT = parseFunctionText(`mint(address to, uint256 amount, ${SIG})`);
const PAY = parseFunctionText(`pay(uint256 amount, address to, ${SIG})`);
const TRANSFER = '0xa9059cbb';
const APPROVE = '0x095ea7b3';

/** A small deterministic generator: the corpus is the same on every run, so a failure reproduces. */
function prng(seed: number) {
  let s = seed >>> 0;
  const next = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  return {
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    maybe: <T>(value: T, p = 0.5): T | undefined => (next() < p ? value : undefined),
    some: <T>(items: readonly T[]): T[] => {
      const chosen = items.filter(() => next() < 0.5);
      return chosen.length > 0 ? chosen : [items[0]!];
    },
  };
}

function randomPolicy(seed: number): SignPolicy | null {
  const r = prng(seed);
  if (seed % 17 === 0) return null;
  const contracts = r.maybe(r.some([A, B, C]));
  const input: SignPolicyInput = {
    chains: r.maybe(r.some(['sepolia', 'ethereum', 'local'])),
    contracts,
    selectors: r.maybe(r.some([MINT.selector, PAY.selector, '0x12345678'])),
    senders: r.maybe(r.some([S1, S2]), 0.3),
    contractUniqs: contracts && r.maybe(contracts.filter((c) => c !== C).map((c) => `${c}=${r.pick([U1, U2])}`), 0.7),
    txChainIds: r.maybe(r.some(['1', '31337', '11155111'])),
    messages: r.maybe(true),
    typedDataContracts: r.maybe(r.some([`1:${A}`, `1:${B}`, `5:${A}`])),
  };
  if (input.contractUniqs?.length === 0) delete (input as { contractUniqs?: unknown }).contractUniqs;
  if (input.txChainIds) {
    Object.assign(input, {
      txTo: r.maybe(r.some([A, B])),
      txSelectors: r.maybe(r.some([TRANSFER, APPROVE])),
      txMaxValue: r.maybe(r.pick(['0', '1000000000000000000'])),
      txMaxFee: r.maybe(r.pick(['21000000000000', '100000000000000000'])),
      txContractCreation: r.maybe(true, 0.3),
    });
  }
  if (input.typedDataContracts?.includes(`1:${A}`) && r.maybe(true)) Object.assign(input, { typedDataNames: [`1:${A}=USD Coin`] });
  const trusted = input.contracts?.filter((c) => !input.contractUniqs?.some((p) => p.startsWith(c)));
  if (trusted && trusted.length > 0 && r.maybe(true)) Object.assign(input, { trustRpcUniq: trusted });
  let policy: SignPolicy;
  try {
    policy = parseSignPolicy(input, CHAINS);
  } catch {
    policy = parseSignPolicy({ messages: true }, CHAINS);
  }
  const rules = [
    r.maybe(parseArgumentRules({ function: `mint(address to, uint256 amount, ${SIG})`, arg: 'amount', lte: '1000' })),
    r.maybe(parseArgumentRules({ function: `pay(uint256 amount, address to, ${SIG})`, arg: 'to', addressIn: [S1] })),
    r.maybe(parseArgumentRules({ function: MINT.selector, arg: '0', eq: S2 }), 0.2),
  ].flatMap((x) => x ?? []);
  const approvals: ApprovalRule[] = [];
  for (const candidate of [
    { required: 2 },
    { required: 1, chains: ['sepolia'] },
    { required: 3, contracts: [B], group: 'treasury' },
    { required: 2, function: `mint(address to, uint256 amount, ${SIG})`, arg: 'amount', gt: '100' },
  ]) {
    if (r.maybe(true, 0.3)) approvals.push(parseApprovalRule(candidate, CHAINS, approvals));
  }
  return {
    ...policy,
    ...(rules.length > 0 ? { rules } : {}),
    ...(approvals.length > 0 ? { approvals } : {}),
  };
}

type Decision = 'allow' | 'deny' | `hold ${number}`;

/** Sign as the release before decided it: lists (and the unpinned rule), argument rules, the pin read from the chain, approval rules. */
function oldCall(policy: SignPolicy | null, q: CallRequest): Decision {
  const fromRequest = q.chain === 'local';
  const facts = { chain: q.chain, contract: q.contract, selector: q.fn.selector, sender: q.sender, uniq: fromRequest ? q.uniq : null };
  if ((signPolicyViolation(policy, facts) ?? argumentRuleViolation(policy?.rules, q.fn, q.args)) !== null) return 'deny';
  if (!fromRequest && pinnedUniqViolation(policy, q.contract, q.uniq) !== null) return 'deny';
  const held = policy?.approvals === undefined ? null : approvalRuleFor(policy.approvals, { chain: q.chain, contract: q.contract, fn: q.fn, args: q.args });
  return held === null ? 'allow' : `hold ${held.required}`;
}

/** Sign as SignCall decides it now: the one evaluator over the migrated document, then the uniq pins. */
function newCall(policy: SignPolicy | null, q: CallRequest): Decision {
  const document = policy === null ? null : documentFromLegacy(policy, TEST_CHAIN_IDS);
  const intent: SignIntent = {
    ...NO_FACTS,
    kind: 'call',
    chain: q.chain,
    chainId: TEST_CHAIN_IDS.idOf(q.chain),
    wallet: WALLET,
    contract: q.contract,
    selector: q.fn.selector,
    sender: q.sender,
    call: { fn: q.fn, args: q.args },
  };
  const decision = evaluatePolicy(document, intent);
  if (decision.decision === 'deny') return 'deny';
  const pins = document ?? {};
  const fromRequest = q.chain === 'local';
  if ((decision.contractBound ? unpinnedViolation(pins, { chain: q.chain, contract: q.contract, uniq: fromRequest ? q.uniq : null }) : null) ?? pinnedUniqViolation(pins, q.contract, q.uniq)) return 'deny';
  return decision.decision === 'hold' ? `hold ${decision.hold!.required}` : 'allow';
}

interface CallRequest {
  chain: string;
  contract: string;
  fn: typeof MINT;
  args: ReturnType<typeof coerceArguments>;
  sender: string;
  uniq: string;
}

const calls: CallRequest[] = [];
for (const chain of ['sepolia', 'ethereum', 'local', 'bsc'])
  for (const contract of [A, B, C])
    for (const [fn, raw] of [
      [MINT, [S1, '5']],
      [MINT, [S2, '500']],
      [MINT, [S1, '5000']],
      [PAY, ['50', S1]],
      [PAY, ['50', S2]],
    ] as const)
      for (const sender of [S1, S2])
        for (const uniq of chain === 'local' ? [U1, U2] : [U1]) calls.push({ chain, contract, fn, args: coerceArguments(raw as unknown as unknown[], fn.argParams), sender, uniq });

const tx = (o: Record<string, unknown>) =>
  payloads.unsignedTransaction({ type: 'eip1559', nonce: 0, gas: 21000, maxFeePerGas: 1000000000, maxPriorityFeePerGas: 1, ...o }).facts;
const transactions = [1, 31337, 11155111].flatMap((chainId) =>
  [A, B, null].flatMap((to) =>
    ['0x', `${TRANSFER}${'00'.repeat(64)}`, `${APPROVE}${'00'.repeat(64)}`, '0x1234'].flatMap((data) =>
      [0n, 10n ** 18n, 2n * 10n ** 18n].flatMap((value) =>
        [1000000000, 10n ** 16n / 21000n + 1n].map((maxFeePerGas) => tx({ chainId, to, data, value, maxFeePerGas })),
      ),
    ),
  ),
);
const domains = [1n, 5n, null].flatMap((chainId) => [A, B, null].flatMap((verifyingContract) => ['USD Coin', 'Other', null].map((name) => ({ chainId, verifyingContract, name }))));

const POLICIES = Array.from({ length: 400 }, (_, i) => randomPolicy(i + 1));

describe('stored policies migrate into documents that decide every request the same way', () => {
  it('Sign calls: allow, deny, hold and its quorum are the same for every policy and request of the corpus', () => {
    let compared = 0;
    const seen = new Set<string>();
    for (const policy of POLICIES) {
      for (const q of calls) {
        const before = oldCall(policy, q);
        expect({ policy, q: { ...q, fn: q.fn.signature }, decision: newCall(policy, q) }).toEqual({ policy, q: { ...q, fn: q.fn.signature }, decision: before });
        seen.add(before.split(' ')[0]!);
        compared++;
      }
    }
    // The corpus exercises every outcome, or an equality would prove little.
    expect([...seen].sort()).toEqual(['allow', 'deny', 'hold']);
    expect(compared).toBeGreaterThan(50_000);
  });

  it('messages, typed data and transactions: the same, except that an approval rule now holds what it matches', () => {
    const outcomes = new Set<string>();
    for (const policy of POLICIES) {
      const document = policy === null ? null : documentFromLegacy(policy, TEST_CHAIN_IDS);
      const holdable = (policy?.approvals?.length ?? 0) > 0;
      const check = (old: string | null, intent: SignIntent) => {
        const now = evaluatePolicy(document, intent).decision;
        outcomes.add(`${old === null ? 'allow' : 'deny'}->${now}`);
        if (old !== null) expect({ policy, intent: { ...intent, decodeCalldata: null }, now }).toEqual({ policy, intent: { ...intent, decodeCalldata: null }, now: 'deny' });
        else expect({ policy, intent: { ...intent, decodeCalldata: null }, now }).toEqual({ policy, intent: { ...intent, decodeCalldata: null }, now: holdable && now === 'hold' ? 'hold' : 'allow' });
      };
      check(messageViolation(policy), { ...NO_FACTS, kind: 'message', wallet: WALLET });
      for (const domain of domains) {
        const chainId = domain.chainId === null ? null : domain.chainId.toString();
        check(typedDataViolation(policy, domain), {
          ...NO_FACTS,
          kind: 'typed-data',
          wallet: WALLET,
          chainId,
          chain: chainId === null ? null : TEST_CHAIN_IDS.nameOf(chainId),
          contract: domain.verifyingContract,
          typedData: { primaryType: 'Permit', domainName: domain.name, message: {} },
        });
      }
      for (const facts of transactions) {
        const chainId = facts.chainId.toString();
        check(transactionViolation(policy, facts), {
          ...NO_FACTS,
          kind: 'transaction',
          wallet: WALLET,
          chainId,
          chain: TEST_CHAIN_IDS.nameOf(chainId),
          contract: facts.to,
          selector: facts.selector,
          value: facts.value,
          fee: facts.fee,
          create: facts.to === null,
          shortData: facts.shortData,
        });
      }
    }
    expect([...outcomes].sort()).toEqual(['allow->allow', 'allow->hold', 'deny->deny']);
  });

  it('a migrated document is a valid document: policies export then policies apply gives it back as it is', () => {
    for (const policy of POLICIES.filter((p): p is SignPolicy => p !== null)) {
      const document = documentFromLegacy(policy, TEST_CHAIN_IDS);
      // Read back as stored (a selector-only integer rule of before is kept as it decides; apply is strict).
      expect(parsePolicyDocument(JSON.parse(JSON.stringify(document)), { chains: CHAINS, strict: false })).toEqual(JSON.parse(JSON.stringify(document)));
    }
  });
});
