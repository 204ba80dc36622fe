import { SIGNATURE_PARAM as SIG } from '../../test/support/sign-request.js';
import { SIGN_ABI, SIGN_ARGS, SIGN_CONTRACT, SIGN_SENDER, SIGN_UNIQ } from './sign-request.js';

/** One adversarial request: a body, or `body(i)` for the i-th copy of those that vary (to defeat caches). */
export interface HostileCase {
  readonly name: string;
  readonly method: 'POST' | 'PUT';
  /** Under the vault: `/sign`, `/wallets`, ... */
  readonly path: string;
  readonly headers?: (i: number) => Record<string, string>;
  readonly body: string | ((i: number) => string);
  /** What the service answers today, checked by the benchmark before it measures anything. */
  readonly expect: number;
}

const MAX_UINT256 = ((1n << 256n) - 1n).toString();
const uint8s = (n: number, prefix = 'c') => Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, type: 'uint8' }));
const nest = (open: string, inner: string, close: string, depth: number) => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

/**
 * Adversarial bodies up to the default body limit (1 MiB): the cases of issue 14 as they were found, and
 * more of the same family, refused ones and valid ones (the costliest requests the bounds still let
 * through are the valid ones at the limits).
 */
export function hostileCorpus(signer: string): HostileCase[] {
  const signBody = (abi: object, args: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ chain: 'local', contract: SIGN_CONTRACT, sender: SIGN_SENDER, uniq: SIGN_UNIQ, signer, abi, args, ...extra });
  const fn = (name: string, inputs: object[], extra: Record<string, unknown> = {}) => ({ type: 'function', name, inputs: [...inputs, SIG], ...extra });
  const sign = (name: string, expect: number, body: HostileCase['body']): HostileCase => ({ name, method: 'POST', path: '/sign', body, expect });

  const seven = fn('f', Array.from({ length: 7 }, (_, i) => ({ name: `a${i}`, type: `uint256${'[]'.repeat(65_532)}` })));
  const longTypes = fn('f', Array.from({ length: 255 }, (_, i) => ({ name: `a${i}`, type: `uint8${'[1]'.repeat(8)}` })));
  const wide = fn('f', [{ name: 't', type: 'tuple', components: uint8s(10_000) }]);
  const sixtyThousand = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 1]));
  const tuple256 = { name: 't', type: 'tuple', components: uint8s(256) };
  const fullTuple = Object.fromEntries(uint8s(256).map((c, i) => [c.name, i]));
  const names = Array.from({ length: 255 }, (_, i) => ({ name: `p${String(i).padStart(249, '0')}`, type: 'uint256' }));
  const padding = Array.from({ length: 7 }, () => 'x'.repeat(120_000));
  const branch = (n: number) => ({ name: `b${n}`, type: 'tuple[]', components: uint8s(253) });
  let deepTuple: object = { name: 'leaf', type: 'uint8[2]' };
  for (let d = 0; d < 7; d++) deepTuple = { name: `t${d}`, type: 'tuple[1]', components: [deepTuple] };
  let deepValue: unknown = [1, 2];
  for (let d = 0; d < 7; d++) deepValue = [[deepValue]];

  return [
    sign('type of 65 532 `[]` × 7 (918 KB), refused', 400, signBody(seven, [])),
    sign('255 inputs of 8-dimension types, refused on args', 400, signBody(longTypes, [])),
    sign('tuple of 10 000 components + 60 000-key object, refused', 400, signBody(wide, [sixtyThousand])),
    sign('256-wide tuple + 60 000-key object, refused', 400, signBody(fn('f', [tuple256]), [sixtyThousand])),
    sign('500 000 array elements (1 MB), refused', 400, signBody(fn('f', [{ name: 'xs', type: 'uint8[][]' }]), [Array.from({ length: 50 }, () => Array<number>(10_000).fill(0))])),
    sign('10 000 max uint256 values (0.8 MB), signed', 200, signBody(fn('f', [{ name: 'xs', type: 'uint256[]' }]), [Array<string>(10_000).fill(MAX_UINT256)])),
    sign('16 000 elements (the value bound), signed', 200, signBody(fn('f', [{ name: 'xs', type: 'uint256[][]' }]), [[Array<number>(10_000).fill(7), Array<number>(6_000).fill(1)]])),
    sign('0.9 MB ABI item, 255 long-named inputs, a new one each time, signed', 200, (i) => signBody(fn(`f${i}`, names, { padding }), names.map(() => '1'))),
    sign('0.9 MB ABI item, a new one each time, refused on args', 400, (i) => signBody(fn(`f${i}`, names, { padding }), [])),
    sign('sign body of 24 000 small objects in an ignored field, refused', 400, signBody(SIGN_ABI, SIGN_ARGS, { extra: Array.from({ length: 3 }, () => Array.from({ length: 8_000 }, (_, i) => ({ a: i }))) })),
    sign('1 021 parameters (4 × tuple[] of 253), 13 212 values, signed', 200, signBody(fn('f', [0, 1, 2, 3].map(branch)), [0, 1, 2, 3].map(() => Array.from({ length: 13 }, () => uint8s(253).map(() => 1))))),
    sign('tuple[1] nested 7 deep (args at their depth limit), signed', 200, signBody(fn('f', [deepTuple]), [deepValue])),
    sign('7 strings of 131 072 characters, signed', 200, signBody(fn('f', uint8s(7, 's').map((p) => ({ ...p, type: 'string' }))), Array.from({ length: 7 }, () => 'y'.repeat(131_072)))),
    sign('7 × 64 KiB of bytes, signed', 200, signBody(fn('f', uint8s(7, 'b').map((p) => ({ ...p, type: 'bytes' }))), Array.from({ length: 7 }, () => `0x${'ab'.repeat(65_535)}`))),
    sign('`contract` nested 400 000 deep, refused', 400, signBody(SIGN_ABI, SIGN_ARGS).replace(/"contract":"[^"]*"/, `"contract":${nest('[', '', ']', 400_000)}`)),
    sign('`args` objects nested 150 000 deep, refused', 400, signBody(SIGN_ABI, []).replace('"args":[]', `"args":${nest('{"a":', '1', '}', 150_000)}`)),
    {
      name: 'create, Idempotency-Key, extra field nested 4 000 deep, refused',
      method: 'POST',
      path: '/wallets',
      headers: (i) => ({ 'idempotency-key': `deep-${i}` }),
      body: `{"name":"w","extra":${nest('[', '', ']', 4_000)}}`,
      expect: 400,
    },
    {
      name: 'create, Idempotency-Key, 60 000 extra keys (0.9 MB), refused',
      method: 'POST',
      path: '/wallets',
      headers: (i) => ({ 'idempotency-key': `wide-${i}` }),
      body: JSON.stringify({ name: 'w', ...Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`key${i}`, i])) }),
      expect: 400,
    },
    {
      name: 'create, Idempotency-Key, 45 extra fields of 10 000-element arrays (0.9 MB), refused',
      method: 'POST',
      path: '/wallets',
      headers: (i) => ({ 'idempotency-key': `big-${i}` }),
      body: JSON.stringify({ name: 'w', ...Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`key${i}`, Array<number>(10_000).fill(0)])) }),
      expect: 400,
    },
    {
      name: 'create, Idempotency-Key, 1 023 extra fields of 800 characters (0.8 MB), created',
      method: 'POST',
      path: '/wallets',
      headers: (i) => ({ 'idempotency-key': `many-${i}` }),
      body: JSON.stringify({ name: 'w', ...Object.fromEntries(Array.from({ length: 1_023 }, (_, i) => [`key${i}`, 'v'.repeat(800)])) }),
      expect: 200,
    },
    {
      name: 'create, Idempotency-Key, 24 000 small objects (0.3 MB), refused',
      method: 'POST',
      path: '/wallets',
      headers: (i) => ({ 'idempotency-key': `objects-${i}` }),
      body: JSON.stringify({ name: 'w', extra: Array.from({ length: 3 }, () => Array.from({ length: 8_000 }, (_, i) => ({ a: i }))) }),
      expect: 400,
    },
    {
      name: 'submission, 500 000-element array (1 MB), refused',
      method: 'POST',
      path: '/submissions',
      body: JSON.stringify({ submissionHash: Array<number>(500_000).fill(0) }),
      expect: 400,
    },
  ];
}
