import { describe, expect, it } from 'vitest';
import { describeApprovalRule, parseApprovalRule, type ApprovalRule } from '../../src/domain/approval-rules.js';
import { coerceArguments } from '../../src/domain/signing/argument-coercion.js';
import { parseFunctionText } from '../../src/domain/signing/function-signature.js';
import { CHAINS } from '../../src/domain/chains.js';
import { approvalRuleFor } from '../support/legacy-decisions.js';

const TRANSFER = 'transfer(address to, uint256 amount, (bytes32,bytes32,bytes32,uint8) sig)';
const fn = parseFunctionText(TRANSFER);
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const facts = (amount: string, o: { chain?: string; contract?: string } = {}) => ({
  chain: o.chain ?? 'sepolia',
  contract: o.contract ?? CONTRACT,
  fn,
  args: coerceArguments(['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', amount], fn.argParams),
});
const rule = (input: Parameters<typeof parseApprovalRule>[0], existing: ApprovalRule[] = []) => parseApprovalRule(input, CHAINS, existing);

describe('approval rules', () => {
  it('a rule without filters holds every sign; each filter narrows it', () => {
    expect(approvalRuleFor([rule({ required: 2 })], facts('1'))?.required).toBe(2);
    const narrow = rule({ required: 2, chains: ['ethereum'], contracts: [CONTRACT.toLowerCase()], function: TRANSFER });
    expect(narrow.contracts).toEqual([CONTRACT]);
    expect(approvalRuleFor([narrow], facts('1', { chain: 'ethereum' }))).toBe(narrow);
    expect(approvalRuleFor([narrow], facts('1'))).toBeNull();
    expect(approvalRuleFor([narrow], facts('1', { chain: 'ethereum', contract: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }))).toBeNull();
    expect(approvalRuleFor([rule({ required: 1, function: 'approve(address,uint256,(bytes32,bytes32,bytes32,uint8))' })], facts('1'))).toBeNull();
  });

  it('an argument bound holds only what is past it: gt, gte, lt, lte at the edge', () => {
    const held = (op: 'gt' | 'gte' | 'lt' | 'lte', amount: string) =>
      approvalRuleFor([rule({ required: 1, function: TRANSFER, arg: 'amount', [op]: '10000' })], facts(amount)) !== null;
    expect([held('gt', '10000'), held('gt', '10001')]).toEqual([false, true]);
    expect([held('gte', '9999'), held('gte', '10000')]).toEqual([false, true]);
    expect([held('lt', '10000'), held('lt', '9999')]).toEqual([false, true]);
    expect([held('lte', '10001'), held('lte', '10000')]).toEqual([false, true]);
    expect(describeApprovalRule(rule({ required: 2, function: TRANSFER, arg: 'amount', gt: '10000' }))).toBe(
      'a1: 2 approvals, for function transfer(address,uint256,(bytes32,bytes32,bytes32,uint8)); when amount gt 10000, expires after 1d',
    );
    // Shown as the operator asked it (`--lt 5` reads "when amount lt 5", never as the rule a held sign breaks).
    expect(describeApprovalRule(rule({ required: 1, function: TRANSFER, arg: 'amount', lt: '5' }))).toContain('; when amount lt 5,');
  });

  it('of several matching rules the one asking the most approvals holds the sign', () => {
    const one = rule({ required: 1 });
    const three = rule({ required: 3, chains: ['sepolia'] }, [one]);
    const two = rule({ required: 2 }, [one, three]);
    expect([one.id, three.id, two.id]).toEqual(['a1', 'a2', 'a3']);
    expect(approvalRuleFor([one, three, two], facts('1'))).toBe(three);
    expect(approvalRuleFor([one, three, two], facts('1', { chain: 'ethereum' }))).toBe(two);
  });

  it('refuses what would hold nothing or everything by mistake, naming the field', () => {
    const refused = (input: Parameters<typeof parseApprovalRule>[0]) => () => rule(input);
    expect(refused({ required: 0 })).toThrow(/^required: 0 is not a whole number from 1 to 10$/);
    expect(refused({ required: 11 })).toThrow(/^required: /);
    expect(refused({ required: '2.5' })).toThrow(/^required: /);
    expect(refused({ required: 2, chains: ['mars'] })).toThrow(/^chains: "mars" is not one of /);
    expect(refused({ required: 2, chains: [] })).toThrow(/^chains: must name at least one value/);
    expect(refused({ required: 2, arg: 'amount', gt: '1' })).toThrow(/^arg: name the function too/);
    expect(refused({ required: 2, gt: '1' })).toThrow(/^gt: name the argument it bounds/);
    expect(refused({ required: 2, function: TRANSFER, arg: 'amount' })).toThrow(/^arg: give exactly one of gt, gte, lt, lte/);
    expect(refused({ required: 2, function: TRANSFER, arg: 'to', gt: '1' })).toThrow(/the rule compares integers/);
    expect(refused({ required: 2, function: TRANSFER, arg: 'amount', gt: 'ten' })).toThrow(/^gt: "ten" is not an integer/);
    expect(refused({ required: 2, group: 'tre asury' })).toThrow(/^group: /);
    expect(refused({ required: 2, expiresIn: '32d' })).toThrow(/longer than 31d/);
  });
});
