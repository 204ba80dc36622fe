import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { AbiCoder, ParamType, getAddress, hexlify, keccak256, recoverAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import { MapKeyStoreRegistry } from '../../src/application/keys/key-store-registry.js';
import { SignCall, type SignResult } from '../../src/application/signing/sign-call.use-case.js';
import { addressFromPublicKey } from '../../src/domain/address.js';
import { parseAbiFunction } from '../../src/domain/signing/abi-function.js';
import { coerceArguments } from '../../src/domain/signing/argument-coercion.js';
import { encodeMessage } from '../../src/domain/signing/signable-digest.js';
import {
  InMemoryAuditLog,
  InMemoryPolicyRepository,
  InMemorySignatureLog,
  InMemoryWalletRepository,
} from '../support/in-memory.persistence.js';
import { InMemoryKeyStore } from '../support/in-memory.key-store.js';
import { FixedClock } from '../support/movable-clock.js';
import { aVault, aWallet } from '../support/wallet-mother.js';
import { ALL_ROLES } from '../../src/domain/api-key-access.js';
import { gateOver } from '../support/policy-gate.js';
import { bindingsOver } from '../support/wallet-bindings.js';

/** A random ABI parameter and a random JSON value for it, in the forms clients send. */
interface Generated {
  param: { name: string; type: string; components?: Generated['param'][] };
  value: unknown;
}

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;
const SIZES = [8, 16, 24, 32, 64, 96, 128, 160, 200, 256];

const elementary: fc.Arbitrary<Generated> = fc.oneof(
  fc.constantFrom(...SIZES).chain((bits) =>
    fc.bigInt(0n, 2n ** BigInt(bits) - 1n).chain((n) =>
      fc.constantFrom<unknown>(n.toString(), `0x${n.toString(16)}`, ...(n <= BigInt(Number.MAX_SAFE_INTEGER) ? [Number(n)] : [])).map((value) => ({
        param: { name: 'u', type: `uint${bits}` },
        value,
      })),
    ),
  ),
  fc.constantFrom(...SIZES).chain((bits) =>
    fc.bigInt(-(2n ** BigInt(bits - 1)), 2n ** BigInt(bits - 1) - 1n).map((n) => ({ param: { name: 'i', type: `int${bits}` }, value: n.toString() })),
  ),
  fc.boolean().map((b) => ({ param: { name: 'b', type: 'bool' }, value: b })),
  fc.uint8Array({ minLength: 20, maxLength: 20 }).chain((a) =>
    fc.constantFrom(hex(a), getAddress(hex(a))).map((value) => ({ param: { name: 'a', type: 'address' }, value })),
  ),
  fc.integer({ min: 1, max: 32 }).chain((n) =>
    fc.uint8Array({ minLength: n, maxLength: n }).map((a) => ({ param: { name: 'f', type: `bytes${n}` }, value: hex(a) })),
  ),
  fc.uint8Array({ maxLength: 80 }).map((a) => ({ param: { name: 'd', type: 'bytes' }, value: hex(a) })),
  fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => ({ param: { name: 's', type: 'string' }, value: s })),
);

const { tree } = fc.letrec<{ tree: Generated }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    elementary,
    // Arrays repeat one generated element: simple way to keep every element of one type.
    fc.tuple(tie('tree'), fc.integer({ min: 0, max: 3 })).chain(([sample, n]) =>
      fc.array(fc.constant(sample), { minLength: n, maxLength: n }).map((items) => ({
        param: { ...sample.param, type: `${sample.param.type}[]` },
        value: items.map((i) => i.value),
      })),
    ),
    // fixed arrays
    fc.tuple(tie('tree'), fc.integer({ min: 1, max: 3 })).chain(([sample, n]) =>
      fc.array(fc.constant(sample), { minLength: n, maxLength: n }).map((items) => ({
        param: { ...sample.param, type: `${sample.param.type}[${n}]` },
        value: items.map((i) => i.value),
      })),
    ),
    // tuples, as arrays or as objects keyed by component name
    fc.tuple(fc.array(tie('tree'), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([fields, asObject]) => {
      const components = fields.map((f, i) => ({ ...f.param, name: `c${i}` }));
      return {
        param: { name: 't', type: 'tuple', components },
        value: asObject ? Object.fromEntries(fields.map((f, i) => [`c${i}`, f.value])) : fields.map((f) => f.value),
      };
    }),
  ),
}));

const SIG = { name: 'sig', type: 'tuple', components: ['nonce', 'r', 's'].map((n) => ({ name: n, type: 'bytes32' })).concat({ name: 'v', type: 'uint8' }) };

/** The value in the shape ethers wants: tuples given as objects become arrays, ints become bigints. */
function forEthers(param: Generated['param'], value: unknown): unknown {
  const array = /^(.*)\[(\d*)\]$/.exec(param.type);
  if (array) return (value as unknown[]).map((v) => forEthers({ ...param, type: array[1]! }, v));
  if (param.type === 'tuple') {
    const fields = Array.isArray(value) ? value : param.components!.map((c) => (value as Record<string, unknown>)[c.name]);
    return param.components!.map((c, i) => forEthers(c, fields[i]));
  }
  if (/int/.test(param.type)) return BigInt(value as string | number);
  return value;
}

describe('signing scheme properties', () => {
  it('encodes any argument list exactly as ethers AbiCoder does', () => {
    fc.assert(
      fc.property(fc.array(tree, { maxLength: 4 }), fc.integer({ min: 0, max: 4 }), (args, at) => {
        const sigAt = Math.min(at, args.length);
        const inputs = args.map((a, i) => ({ ...a.param, name: `p${i}` }));
        inputs.splice(sigAt, 0, SIG);
        const parsed = parseAbiFunction({ type: 'function', name: 'fuzz', inputs });
        const message = encodeMessage(parsed, coerceArguments(args.map((a) => a.value), parsed.argParams));
        const types = args.map((a) => ParamType.from(a.param));
        const expected = AbiCoder.defaultAbiCoder().encode(
          ['bytes4', ...types],
          [parsed.selector, ...args.map((a) => forEthers(a.param, a.value))],
        );
        expect(message).toBe(expected);
        expect(parsed.selector).toBe(keccak256(Buffer.from(parsed.signature)).slice(0, 10));
      }),
      { numRuns: 300 },
    );
  });

  it('every signature recovers (ecrecover semantics) to the signer over the scheme digest', async () => {
    const repo = new InMemoryWalletRepository();
    const store = new InMemoryKeyStore('local');
    const vault = aVault();
    await repo.ensureAccount(vault.accountId, new Date());
    await repo.insertVault(vault);
    const key = await store.create();
    const auditLog = new InMemoryAuditLog();
    const bindings = bindingsOver(new MapKeyStoreRegistry([store], 'local'), auditLog);
    const unbound = aWallet(vault, { address: addressFromPublicKey(key.publicKey), keyRef: key.keyRef, keyStore: 'local' });
    const wallet = { ...unbound, binding: await bindings.bind(unbound) };
    await repo.insertWallet(wallet);
    const sign = new SignCall({
      repository: repo,
      bindings,
      chainReader: { hasRpc: () => false, readSignable: () => Promise.reject(new Error('no rpc')) },
      signatureLog: new InMemorySignatureLog(auditLog),
      clock: new FixedClock(new Date('2026-06-01T00:00:00Z')),
      random: (n) => randomBytes(n),
      gate: gateOver(new InMemoryPolicyRepository(), auditLog, new FixedClock(new Date('2026-06-01T00:00:00Z'))),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(tree, { maxLength: 3 }), fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.boolean(), async (args, uniqBytes, senderBytes, upperUniq) => {
        const inputs = [...args.map((a, i) => ({ ...a.param, name: `p${i}` })), SIG];
        const uniq = hex(uniqBytes);
        const sentUniq = upperUniq ? `0x${uniq.slice(2).toUpperCase()}` : uniq;
        const sender = hex(senderBytes);
        const values = args.map((a) => a.value);
        const result = (await sign.execute({
          principal: { apiKeyId: '0123456789abcdef', vaultId: vault.id, roles: ALL_ROLES },
          ...{ chain: 'local', contract: sender, sender, uniq: sentUniq, signer: wallet.address, abi: { type: 'function', name: 'go', inputs }, args: values },
        })) as SignResult;
        // Recorded in lower case, whatever case it was sent in.
        expect(auditLog.records.at(-1)!.details).toMatchObject({ uniq });
        const sig = result.args[args.length] as { nonce: string; r: string; s: string; v: number };
        expect(result.args.slice(0, args.length)).toEqual(values);
        const parsed = parseAbiFunction({ type: 'function', name: 'go', inputs });
        const message = AbiCoder.defaultAbiCoder().encode(['bytes4', ...args.map((a) => ParamType.from(a.param))], [parsed.selector, ...args.map((a) => forEthers(a.param, a.value))]);
        const digest = keccak256(AbiCoder.defaultAbiCoder().encode(['bytes32', 'bytes32', 'address', 'bytes'], [uniq, sig.nonce, sender, message]));
        expect(recoverAddress(digest, { r: sig.r, s: sig.s, v: sig.v })).toBe(wallet.address);
        expect(BigInt(sig.s) <= 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n).toBe(true);
        expect(result.submissionHash).toBe(keccak256(AbiCoder.defaultAbiCoder().encode(['bytes32', 'bytes32', 'bytes32', 'uint8'], [sig.nonce, sig.r, sig.s, sig.v])));
        expect(hexlify(Buffer.from(sig.nonce.slice(2), 'hex'))).toHaveLength(66);
      }),
      { numRuns: 150 },
    );
  });
});
