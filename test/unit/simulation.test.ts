import { AbiCoder, Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import { outflowOverBound, TransactionSimulator, type SimulationOutcome } from '../../src/application/signing/transaction-simulation.js';
import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { parsePolicyDocument } from '../../src/domain/policy/policy-document.parse.js';
import { evaluatePolicy } from '../../src/domain/policy/policy-evaluation.js';
import { NO_FACTS } from '../../src/domain/policy/sign-intent.js';
import { decodeRevertReason, MAX_REVERT_DATA_BYTES } from '../../src/domain/signing/revert-reason.js';
import type { ChainRpc, RelayedAnswer } from '../../src/ports/chain-rpc.port.js';

/** The revert reasons a simulation reports, the rule fields that steer it, and the simulator over a scripted RPC. */
const abi = new Interface(['error Error(string)', 'error Panic(uint256)', 'error NotOwner(address who)']);
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';

describe('revert reasons', () => {
  it('decodes Error(string), Panic(uint256) with its meaning, a known custom error by name, else its selector and data', () => {
    expect(decodeRevertReason(abi.encodeErrorResult('Error', ['no funds'])).reason).toBe('Error("no funds")');
    expect(decodeRevertReason(abi.encodeErrorResult('Panic', [0x12])).reason).toBe('Panic(0x12: division or modulo by zero)');
    expect(decodeRevertReason(abi.encodeErrorResult('Panic', [0x99])).reason).toBe('Panic(0x99: unknown panic code)');
    const custom = abi.encodeErrorResult('NotOwner', [WALLET]);
    expect(decodeRevertReason(custom, ['NotOwner(address)']).reason).toBe(`NotOwner(address) (data ${custom.toLowerCase()})`);
    const unknown = decodeRevertReason(custom);
    expect([unknown.kind, unknown.selector, unknown.reason]).toEqual(['custom', abi.getError('NotOwner')!.selector, `custom error ${abi.getError('NotOwner')!.selector} (data ${custom.toLowerCase()})`]);
    expect(decodeRevertReason('0x').reason).toBe('reverted without a reason');
  });

  it('escapes control characters of a reason, cuts long ones, and bounds the data it keeps', () => {
    expect(decodeRevertReason(abi.encodeErrorResult('Error', ['a\nb'])).reason).toBe('Error("a\\\\u{000A}b")');
    expect(decodeRevertReason(abi.encodeErrorResult('Error', ['x'.repeat(5000)])).reason.length).toBeLessThan(260);
    expect(decodeRevertReason(`0xdeadbeef${'00'.repeat(4000)}`).data.length).toBe(2 + MAX_REVERT_DATA_BYTES * 2);
    // Error's selector with a body that is no ABI string: not read as one.
    expect(decodeRevertReason(`0x08c379a0${new AbiCoder().encode(['uint256'], [5]).slice(2)}`).kind).toBe('custom');
  });
});

describe('the rule fields of the simulation', () => {
  const parse = (rule: Record<string, unknown>) => parsePolicyDocument({ version: 2, rules: [{ id: 'r', effect: 'allow', kinds: ['transaction'], ...rule }] }, { chains: ['devnet'] });
  const intent = { ...NO_FACTS, kind: 'transaction' as const, wallet: WALLET, contract: TOKEN };

  it('carries simulate: false, maxOutflow and maxTokenOutflow of the deciding rule into the decision; a rule without them carries none', () => {
    expect(evaluatePolicy(parse({ simulate: false }), intent).simulation).toEqual({ simulate: false, maxOutflow: undefined, maxTokenOutflow: undefined });
    const bounded = evaluatePolicy(parse({ maxOutflow: '5', maxTokenOutflow: { [TOKEN.toLowerCase()]: 7 } }), intent);
    expect(bounded.simulation).toEqual({ simulate: undefined, maxOutflow: '5', maxTokenOutflow: { [TOKEN]: '7' } });
    expect(evaluatePolicy(parse({}), intent).simulation).toBeUndefined();
  });

  it('refuses what it cannot mean, naming the field', () => {
    expect(() => parse({ simulate: true })).toThrow('rules[0].simulate: must be false');
    expect(() => parse({ maxOutflow: '-1' })).toThrow('rules[0].maxOutflow');
    expect(() => parse({ maxTokenOutflow: { nope: '1' } })).toThrow('rules[0].maxTokenOutflow');
    expect(() => parse({ maxTokenOutflow: {} })).toThrow('rules[0].maxTokenOutflow');
    expect(() => parse({ simulate: false, maxOutflow: '1' })).toThrow('rules[0].simulate: false leaves nothing');
  });
});

describe('TransactionSimulator over a scripted RPC', () => {
  const rpcAnswering = (answer: (method: string, params: readonly unknown[]) => RelayedAnswer | Error) => {
    const asked: string[] = [];
    const rpc: ChainRpc = {
      chainsWithRpc: () => ['devnet'],
      chainIdOf: () => 31337n,
      relay: async (_chain, method, params) => {
        asked.push(method);
        const a = answer(method, params);
        if (a instanceof Error) throw a;
        return a;
      },
    };
    const outcomes: SimulationOutcome[] = [];
    return { asked, outcomes, simulator: new TransactionSimulator(rpc, { observeSimulation: (o) => outcomes.push(o) }) };
  };
  const call = { chainId: 31337n, from: WALLET, to: TOKEN, data: '0x', value: 0n };

  it('asks one eth_call at the pending block; a chain without an RPC and a rule with simulate: false ask nothing', async () => {
    const { asked, outcomes, simulator } = rpcAnswering(() => ({ result: '0x', bytes: 10 }));
    expect(await simulator.simulate(call, undefined, 'transaction')).toEqual({ chain: 'devnet', method: 'eth_call' });
    expect(await simulator.simulate({ ...call, chainId: 1n }, undefined, 'transaction')).toBeNull();
    expect(await simulator.simulate(call, { simulate: false }, 'transaction')).toBeNull();
    expect([asked, outcomes]).toEqual([['eth_call'], ['ok']]);
  });

  it('reads the wallet net outflow per token from eth_simulateV1 traced transfers, and bounds it', async () => {
    const topic = (a: string) => `0x${'0'.repeat(24)}${a.slice(2).toLowerCase()}`;
    const transfer = (token: string, from: string, to: string, amount: bigint) => ({
      address: token,
      topics: ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', topic(from), topic(to)],
      data: `0x${amount.toString(16).padStart(64, '0')}`,
    });
    const other = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
    const logs = [transfer(TOKEN, WALLET, other, 100n), transfer(TOKEN, other, WALLET, 30n), transfer('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', WALLET, other, 5n)];
    const { asked, simulator } = rpcAnswering(() => ({ result: [{ calls: [{ status: '0x1', returnData: '0x', logs }] }], bytes: 100 }));
    const demand = { maxTokenOutflow: { [TOKEN]: '50' } };
    const report = (await simulator.simulate(call, demand, 'transaction'))!;
    expect([report.nativeOutflow, report.tokenOutflow]).toEqual([5n, { [TOKEN.toLowerCase()]: 70n }]);
    expect(asked).toEqual(['eth_simulateV1']);
    expect(outflowOverBound(report, demand)).toBe(`the simulation moves 70 units of token ${TOKEN} out of the wallet, over the rule's maxTokenOutflow 50`);
    expect(outflowOverBound(report, { maxTokenOutflow: { [TOKEN]: '70' }, maxOutflow: '5' })).toBeNull();
  });

  it('fails closed: a node without eth_simulateV1 where a rule bounds the outflow, an answer over the byte cap, an RPC down; each counted failed', async () => {
    const { outcomes, simulator } = rpcAnswering((method) =>
      method === 'eth_simulateV1' ? { error: { code: -32601, message: 'Method not found' }, bytes: 50 } : new Error('not asked'),
    );
    await expect(simulator.simulate(call, { maxOutflow: '1' }, 'transaction')).rejects.toMatchObject({ code: ErrorCode.CHAIN_UNAVAILABLE, message: expect.stringContaining('does not offer eth_simulateV1') });
    const big = rpcAnswering(() => new DomainError(ErrorCode.RPC_ANSWER_TOO_LARGE, 'over'));
    await expect(big.simulator.simulate(call, undefined, 'transaction')).rejects.toMatchObject({ code: ErrorCode.CHAIN_UNAVAILABLE, message: expect.stringContaining('over 524288 bytes') });
    const down = rpcAnswering(() => new DomainError(ErrorCode.CHAIN_UNAVAILABLE, 'chain devnet: RPC did not answer eth_call'));
    await expect(down.simulator.simulate(call, undefined, 'transaction')).rejects.toMatchObject({ code: ErrorCode.CHAIN_UNAVAILABLE });
    // A node that cannot run eth_call at all (no such method, a rate limit) did not answer: 502, not a revert.
    const unable = rpcAnswering(() => ({ error: { code: -32601, message: 'the method eth_call does not exist' }, bytes: 60 }));
    await expect(unable.simulator.simulate(call, undefined, 'transaction')).rejects.toMatchObject({ code: ErrorCode.CHAIN_UNAVAILABLE, message: expect.stringContaining('RPC could not run the simulation') });
    expect([outcomes, big.outcomes, down.outcomes, unable.outcomes]).toEqual([['failed'], ['failed'], ['failed'], ['failed']]);
  });

  it("for a held transaction's approvers, asks eth_simulateV1 for the outflows where the node has it, else eth_call (remembered per chain); a revert is confirmed by eth_call", async () => {
    const without = rpcAnswering((method) => (method === 'eth_simulateV1' ? { error: { code: -32601, message: 'Method not found' }, bytes: 50 } : { result: '0x', bytes: 10 }));
    expect(await without.simulator.simulate(call, undefined, 'transaction', [], { reportOutflows: true })).toEqual({ chain: 'devnet', method: 'eth_call' });
    expect(await without.simulator.simulate(call, undefined, 'transaction', [], { reportOutflows: true })).toEqual({ chain: 'devnet', method: 'eth_call' });
    expect(without.asked).toEqual(['eth_simulateV1', 'eth_call', 'eth_call']);
    // A node whose eth_simulateV1 refuses something of its own: eth_call, which runs it, decides.
    const quirky = rpcAnswering((method) => (method === 'eth_simulateV1' ? { error: { code: 3, message: 'execution reverted', data: '0x' }, bytes: 50 } : { result: '0x', bytes: 10 }));
    expect(await quirky.simulator.simulate(call, undefined, 'transaction', [], { reportOutflows: true })).toEqual({ chain: 'devnet', method: 'eth_call' });
    const reverting = rpcAnswering(() => ({ error: { code: 3, message: 'execution reverted', data: abi.encodeErrorResult('Error', ['no']) }, bytes: 80 }));
    await expect(reverting.simulator.simulate(call, undefined, 'transaction', [], { reportOutflows: true })).rejects.toMatchObject({ code: ErrorCode.SIMULATION_REVERTED });
    expect(reverting.asked).toEqual(['eth_simulateV1', 'eth_call']);
  });

  it('a node refusing the call without revert data (insufficient funds) is a revert with its message; counted reverted', async () => {
    const { outcomes, simulator } = rpcAnswering(() => ({ error: { code: -32003, message: 'insufficient funds for transfer' }, bytes: 80 }));
    await expect(simulator.simulate(call, undefined, 'transaction')).rejects.toMatchObject({
      code: ErrorCode.SIMULATION_REVERTED,
      message: expect.stringContaining('the node refused it: insufficient funds for transfer'),
    });
    expect(outcomes).toEqual(['reverted']);
  });
});
