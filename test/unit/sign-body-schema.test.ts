import { describe, expect, it } from 'vitest';
import { signBodySchema } from '../../adapters/http/schemas.js';
import { readSignFields, SIGN_FIELDS } from '../../src/application/signing/sign-call.use-case.js';
import { CHAINS } from '../../src/domain/chains.js';
import { localSignBody } from '../support/sign-request.js';

/*
 * OpenAPI's SignRequest (signBodySchema) is written for the document; Sign's fields are checked by the
 * use case alone (readSignFields). This holds the one to the other: the same fields, and the same verdict
 * on each body of a corpus where the field checks decide. What the schema cannot state is left out on
 * purpose: an EIP-55 checksum, the chains the server was configured with, and what the ABI makes of
 * `abi` and `args` (the use case's ABI parse and argument coercion refuse those, with the field named).
 */
const SIGNER = '0x90f79bf6eb2c4f870365e785982e1f101e93b906';
const valid = localSignBody(SIGNER);
const without = (...fields: string[]): Record<string, unknown> => Object.fromEntries(Object.entries(valid).filter(([k]) => !fields.includes(k)));

const corpus: ReadonlyArray<readonly [string, unknown]> = [
  ['a full body on local', valid],
  ['no uniq nor signer (read from the contract)', without('uniq', 'signer')],
  ['simulate true', { ...valid, simulate: true }],
  ['simulate false', { ...valid, simulate: false }],
  ['addresses in upper case', { ...valid, contract: '0x' + valid.contract.slice(2).toUpperCase(), sender: '0x' + valid.sender.slice(2).toUpperCase() }],
  ['uniq in upper case', { ...valid, uniq: '0x' + valid.uniq.slice(2).toUpperCase() }],
  ...CHAINS.map((chain) => [`chain ${chain}`, { ...valid, chain }] as const),
  ['an array', [valid]],
  ['null', null],
  ['a string', JSON.stringify(valid)],
  ['an unknown field', { ...valid, nonce: '0x00' }],
  ['a field named principal', { ...valid, principal: { vaultId: 'other' } }],
  ...SIGN_FIELDS.filter((f) => !['uniq', 'signer', 'simulate'].includes(f)).map((f) => [`no ${f}`, without(f)] as const),
  ['chain not a string', { ...valid, chain: 1 }],
  ['contract not hex', { ...valid, contract: '0xzz' + valid.contract.slice(4) }],
  ['contract too short', { ...valid, contract: valid.contract.slice(0, 40) }],
  ['sender a number', { ...valid, sender: 42 }],
  ['uniq of 31 bytes', { ...valid, uniq: '0x' + 'ab'.repeat(31) }],
  ['uniq null', { ...valid, uniq: null }],
  ['signer without 0x', { ...valid, signer: SIGNER.slice(2) }],
  ['simulate a string', { ...valid, simulate: 'true' }],
  ['simulate null', { ...valid, simulate: null }],
];

const byUseCase = (body: unknown): boolean => {
  try {
    readSignFields(body, CHAINS);
    return true;
  } catch {
    return false;
  }
};

describe("OpenAPI's Sign body and the use case's check", () => {
  it('name the same fields', () => {
    expect(Object.keys(signBodySchema.shape).sort()).toEqual([...SIGN_FIELDS].sort());
  });

  it.each(corpus)('give the same verdict: %s', (_name, body) => {
    const verdict = byUseCase(body);
    expect(signBodySchema.safeParse(body).success).toBe(verdict);
  });

  it('the corpus holds both verdicts (a check that accepts or refuses everything fails it)', () => {
    const verdicts = corpus.map(([, body]) => byUseCase(body));
    expect(verdicts.filter(Boolean).length).toBe(6 + CHAINS.length);
    expect(verdicts.filter((v) => !v).length).toBe(corpus.length - 6 - CHAINS.length);
  });

  it('refuses an unknown field in the words every caller sees', () => {
    expect(() => readSignFields({ ...valid, nonce: '0x00' }, CHAINS)).toThrow(
      'nonce: is not a field of Sign (chain, contract, sender, uniq, signer, abi, args, simulate); nothing in it would bind the signature',
    );
    expect(() => readSignFields({ ...valid, simulate: 1 }, CHAINS)).toThrow('simulate: must be true or false');
  });
});
