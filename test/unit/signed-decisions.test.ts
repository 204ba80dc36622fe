import { Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { readingPayloads } from '../support/read-payloads.js';
import { decisionTypedData, policyChangeTypedData } from '../../src/domain/signed-decisions.js';

const payloads = readingPayloads();
const approver = Wallet.createRandom();
const vault = '0190a3b0-0000-7000-8000-000000000001';
const approval = '0190a3b0-0000-7000-8000-0000000000aa';
const request = 'ab'.repeat(32);

async function sign(typed: ReturnType<typeof decisionTypedData> | ReturnType<typeof policyChangeTypedData>): Promise<string> {
  return approver.signTypedData(typed.domain, typed.types as never, typed.message);
}

describe('signed decisions: the EIP-712 messages an approver signs', () => {
  it('a Decision signed by ethers recovers to the approver, over exactly that vault, approval, request and decision', async () => {
    const typed = decisionTypedData(vault, approval, request, 'approve');
    const signature = await sign(typed);
    expect(payloads.recoverTypedDataSigner(typed, signature)).toBe(approver.address);
    expect(payloads.recoverTypedDataSigner(decisionTypedData(vault, approval, request, 'reject'), signature)).not.toBe(approver.address);
    expect(payloads.recoverTypedDataSigner(decisionTypedData(vault, approval, 'cd'.repeat(32), 'approve'), signature)).not.toBe(approver.address);
  });

  it('a PolicyChange recovers to its signer', async () => {
    const typed = policyChangeTypedData(vault, approval, `0x${request}`);
    expect(payloads.recoverTypedDataSigner(typed, await sign(typed))).toBe(approver.address);
  });

  it('malformed and malleable (high-S) signatures recover nobody', async () => {
    const typed = decisionTypedData(vault, approval, request, 'approve');
    const signature = await sign(typed);
    expect(payloads.recoverTypedDataSigner(typed, '0x1234')).toBeNull();
    expect(payloads.recoverTypedDataSigner(typed, 42 as unknown as string)).toBeNull();
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const v = parseInt(signature.slice(130), 16);
    const twin = `${signature.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
    expect(payloads.recoverTypedDataSigner(typed, twin)).toBeNull();
  });
});
