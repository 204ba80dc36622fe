import { AbiCoder, keccak256, getBytes, hexlify, id } from 'ethers';
import { describe, expect, it } from 'vitest';
import { parseAbiFunction } from '../../src/domain/signing/abi-function.js';
import { coerceArguments } from '../../src/domain/signing/argument-coercion.js';
import { argsWithSignature, encodeMessage, signableDigest, submissionHash } from '../../src/domain/signing/signable-digest.js';

const SIG = { name: 'sig', type: 'tuple', components: ['nonce', 'r', 's'].map((n) => ({ name: n, type: 'bytes32' })).concat({ name: 'v', type: 'uint8' }) };
const fn = (inputs: unknown[], name = 'f') => ({ type: 'function', name, inputs, outputs: [], stateMutability: 'nonpayable' });
const coder = AbiCoder.defaultAbiCoder();

describe('ABI function items', () => {
  it('computes the selector over the canonical signature with tuples written out', () => {
    const parsed = parseAbiFunction(
      fn([
        { name: 'o', type: 'tuple', components: [{ name: 'a', type: 'uint' }, { name: 'b', type: 'address[]' }] },
        SIG,
        { name: 'xs', type: 'tuple[2]', components: [{ name: 'c', type: 'bytes' }] },
      ]),
    );
    expect(parsed.signature).toBe('f((uint256,address[]),(bytes32,bytes32,bytes32,uint8),(bytes)[2])');
    expect(parsed.selector).toBe(id(parsed.signature).slice(0, 10));
    expect(parsed.signatureIndex).toBe(1);
    expect(parsed.argParams.map((p) => p.name)).toEqual(['o', 'xs']);
  });

  it.each([
    [[fn([SIG])], /not the whole ABI array/],
    ['mint', /must be an ABI function item/],
    [{ ...fn([SIG]), type: 'event' }, /abi.type: must be "function"/],
    [{ ...fn([SIG]), name: '1bad' }, /abi.name/],
    [{ type: 'function', name: 'f' }, /abi.inputs: must be an array/],
    [fn([{ name: 'a', type: 'uint256' }]), /no signature parameter/],
    [fn([SIG, SIG]), /more than one signature parameter/],
    [fn([{ name: 'a', type: 'uint7' }, SIG]), /abi.inputs\[0\].type: "uint7" is not a Solidity ABI type/],
    [fn([{ name: 'a', type: 'tuple' }, SIG]), /abi.inputs\[0\].components/],
    [fn([{ name: 'a', type: 'uint256[0]' }, SIG]), /invalid array length/],
  ])('refuses %j', (abi, message) => {
    expect(() => parseAbiFunction(abi)).toThrow(message);
  });

  it('treats a (bytes32,bytes32,bytes32,uint8) tuple as the signature whatever its names', () => {
    const renamed = { ...SIG, name: 'auth', components: SIG.components.map((c, i) => ({ ...c, name: `x${i}` })) };
    expect(parseAbiFunction(fn([renamed, { name: 'a', type: 'bool' }])).signatureIndex).toBe(0);
  });
});

describe('argument coercion', () => {
  const params = (inputs: unknown[]) => parseAbiFunction(fn([...inputs, SIG])).argParams;
  const one = (type: string, value: unknown, extra: object = {}) => coerceArguments([value], params([{ name: 'a', type, ...extra }]));

  it('accepts integers as safe JSON numbers, decimal or hex strings, and checks ranges', () => {
    expect(one('uint8', 255)).toEqual([255n]);
    expect(one('uint256', '115792089237316195423570985008687907853269984665640564039457584007913129639935')).toEqual([2n ** 256n - 1n]);
    expect(one('int8', -128)).toEqual([-128n]);
    expect(one('uint16', '0xffff')).toEqual([65535n]);
    expect(() => one('uint8', 256)).toThrow('args[0] (uint8): 256 is out of range');
    expect(() => one('int8', 128)).toThrow(/out of range/);
    expect(() => one('uint256', -1)).toThrow(/out of range/);
    expect(() => one('uint256', 'abc')).toThrow('args[0] (uint256): "abc" is not an integer');
    expect(() => one('uint256', 1.5)).toThrow(/is not a safe integer/);
    expect(() => one('uint256', 2 ** 60)).toThrow(/safe integer/);
    expect(() => one('uint256', true)).toThrow(/is not an integer/);
  });

  it('checks bool, address checksums, bytesN lengths, bytes and strings', () => {
    expect(one('bool', false)).toEqual([false]);
    expect(() => one('bool', 'true')).toThrow('args[0] (bool): "true" is not true or false');
    const lower = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
    expect(one('address', lower)).toEqual(['0x70997970C51812dc3A010C7d01b50e0d17dc79C8']);
    expect(one('address', lower.toUpperCase().replace('0X', '0x'))).toHaveLength(1);
    expect(() => one('address', '0x70997970C51812dc3A010C7d01b50e0d17dc79c8')).toThrow(/args\[0\] \(address\): .* invalid EIP-55 checksum/);
    expect(() => one('address', '0x1234')).toThrow(/not a 0x-prefixed 20-byte hex address/);
    expect(one('bytes4', '0xDEADBEEF')).toEqual(['0xdeadbeef']);
    expect(() => one('bytes4', '0xdead')).toThrow('args[0] (bytes4): "0xdead" is 2 bytes, expected 4');
    expect(() => one('bytes', '0xabc')).toThrow(/not 0x-prefixed hex bytes/);
    expect(() => one('string', 5)).toThrow(/is not a string/);
  });

  it('enforces array shapes and names the path inside tuples and arrays', () => {
    expect(() => one('uint8[2]', [1])).toThrow('args[0] (uint8[2]): has 1 elements, expected 2');
    expect(() => one('uint8[]', 'x')).toThrow(/is not an array/);
    const order = {
      name: 'order',
      type: 'tuple',
      components: [
        { name: 'id', type: 'uint64' },
        { name: 'items', type: 'tuple[]', components: [{ name: 'token', type: 'address' }, { name: 'amount', type: 'uint256' }] },
      ],
    };
    const token = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
    const p = params([{ name: 'x', type: 'bool' }, order]);
    expect(() => coerceArguments([true, { id: 1, items: [[token, 1], [token, 2], { token, amount: 'abc' }] }], p)).toThrow(
      'args[1].items[2].amount (uint256): "abc" is not an integer',
    );
    expect(() => coerceArguments([true, { id: 1 }], p)).toThrow(/args\[1\].items \(\(address,uint256\)\[\]\): is missing/);
    expect(() => coerceArguments([true, { id: 1, items: [], extra: 1 }], p)).toThrow(/unknown field "extra"/);
    expect(() => coerceArguments([true, [1]], p)).toThrow(/has 1 fields, expected 2/);
  });

  it('wants exactly the arguments without the signature parameter', () => {
    const p = params([{ name: 'a', type: 'uint8' }, { name: 'b', type: 'bool' }]);
    expect(() => coerceArguments([1], p)).toThrow('args: expected 2 arguments (the function\'s inputs without the signature parameter), got 1');
    expect(() => coerceArguments({}, p)).toThrow('args: must be an array');
  });
});

describe('the signed digest and submission hash', () => {
  it('match an independent computation with ethers', () => {
    const parsed = parseAbiFunction(fn([{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }, SIG], 'mint'));
    const to = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const message = encodeMessage(parsed, coerceArguments([to, '1000'], parsed.argParams));
    expect(message).toBe(coder.encode(['bytes4', 'address', 'uint256'], [id('mint(address,uint256,(bytes32,bytes32,bytes32,uint8))').slice(0, 10), to, 1000n]));
    const uniq = `0x${'ab'.repeat(32)}` as const;
    const nonce = `0x${'cd'.repeat(32)}` as const;
    const sender = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' as const;
    const digest = signableDigest({ uniq, nonce, sender, message });
    expect(hexlify(digest)).toBe(keccak256(coder.encode(['bytes32', 'bytes32', 'address', 'bytes'], [uniq, nonce, sender, message])));
    const sig = { nonce, r: `0x${'11'.repeat(32)}` as const, s: `0x${'22'.repeat(32)}` as const, v: 28 as const };
    expect(submissionHash(sig)).toBe(keccak256(coder.encode(['bytes32', 'bytes32', 'bytes32', 'uint8'], [sig.nonce, sig.r, sig.s, sig.v])));
    expect(getBytes(submissionHash(sig))).toHaveLength(32);
  });

  it('returns the supplied args untouched with the signature at its position', () => {
    const parsed = parseAbiFunction(fn([{ name: 'a', type: 'uint8' }, SIG, { name: 'b', type: 'string' }]));
    const sig = { nonce: '0x01', r: '0x02', s: '0x03', v: 27 } as never;
    expect(argsWithSignature(parsed, ['0x05', 'x'], sig)).toEqual(['0x05', { nonce: '0x01', r: '0x02', s: '0x03', v: 27 }, 'x']);
  });
});
