import type { AbiParam } from './abi-function.js';
import type { AbiValue } from './argument-coercion.js';

/**
 * abi.encode for values already checked by argument-coercion.ts (bigints in range, addresses and hex
 * strings well-formed, arrays of the right length), written straight into one buffer: the size is
 * computed first, then every word is written once. A general encoder builds and joins a hex string per
 * value, which at the value bound (VAULT_ARGS_MAX_VALUES) cost tens of milliseconds of CPU per sign.
 * signing.property.test.ts holds it to ethers' AbiCoder for random types and values.
 */
interface Codec {
  /** Bytes of a static encoding; undefined when the encoding is dynamic (it has a tail). */
  readonly staticSize: number | undefined;
  size(value: AbiValue): number;
  write(value: AbiValue, buf: Buffer, at: number): void;
}

const WORD = 32;
const TWO_256 = 1n << 256n;
const padded = (n: number) => Math.ceil(n / WORD) * WORD;

function writeUint(buf: Buffer, at: number, value: bigint): void {
  const word = value < 0n ? value + TWO_256 : value;
  buf.write(word.toString(16).padStart(64, '0'), at, WORD, 'hex');
}

const word = (write: (value: AbiValue, buf: Buffer, at: number) => void): Codec => ({ staticSize: WORD, size: () => WORD, write });

function elementary(type: string): Codec {
  if (type === 'bool') return word((v, buf, at) => void (buf[at + WORD - 1] = v === true ? 1 : 0));
  if (type === 'address') return word((v, buf, at) => void buf.write((v as string).slice(2), at + 12, 20, 'hex'));
  if (/^u?int\d+$/.test(type)) return word((v, buf, at) => writeUint(buf, at, v as bigint));
  if (/^bytes\d+$/.test(type)) return word((v, buf, at) => void buf.write((v as string).slice(2), at, WORD, 'hex'));
  const text = type === 'string';
  const length = (v: AbiValue) => (text ? Buffer.byteLength(v as string, 'utf8') : ((v as string).length - 2) / 2);
  return {
    staticSize: undefined,
    size: (v) => WORD + padded(length(v)),
    write: (v, buf, at) => {
      writeUint(buf, at, BigInt(length(v)));
      if (text) buf.write(v as string, at + WORD, 'utf8');
      else buf.write((v as string).slice(2), at + WORD, 'hex');
    },
  };
}

/** Head and tail of a sequence (a tuple, a fixed array, an array's elements), offsets from its start. */
function sequence(codecs: (i: number) => Codec, count: (value: AbiValue) => number): Omit<Codec, 'staticSize'> {
  const headSize = (values: readonly AbiValue[]) => {
    let size = 0;
    for (let i = 0; i < values.length; i++) size += codecs(i).staticSize ?? WORD;
    return size;
  };
  return {
    size: (value) => {
      const values = value as readonly AbiValue[];
      let size = 0;
      for (let i = 0; i < count(value); i++) {
        const codec = codecs(i);
        size += codec.staticSize ?? WORD + codec.size(values[i]!);
      }
      return size;
    },
    write: (value, buf, at) => {
      const values = value as readonly AbiValue[];
      let head = at;
      let tail = at + headSize(values);
      for (let i = 0; i < values.length; i++) {
        const codec = codecs(i);
        if (codec.staticSize !== undefined) {
          codec.write(values[i]!, buf, head);
          head += codec.staticSize;
        } else {
          writeUint(buf, head, BigInt(tail - at));
          head += WORD;
          codec.write(values[i]!, buf, tail);
          tail += codec.size(values[i]!);
        }
      }
    },
  };
}

function compile(param: AbiParam): Codec {
  const type = param.type;
  if (type.endsWith(']')) {
    const open = type.lastIndexOf('[');
    const element = compile({ ...param, type: type.slice(0, open) });
    const fixed = type.slice(open + 1, -1);
    if (fixed !== '') {
      const length = Number(fixed);
      const elements = sequence(() => element, () => length);
      const staticSize = element.staticSize === undefined ? undefined : element.staticSize * length;
      return { staticSize, ...elements };
    }
    const elements = sequence(() => element, (v) => (v as readonly AbiValue[]).length);
    return {
      staticSize: undefined,
      size: (v) => WORD + elements.size(v),
      write: (v, buf, at) => {
        writeUint(buf, at, BigInt((v as readonly AbiValue[]).length));
        elements.write(v, buf, at + WORD);
      },
    };
  }
  if (type === 'tuple') return tuple(param.components!.map(compile));
  return elementary(type);
}

function tuple(components: readonly Codec[]): Codec {
  const fields = sequence((i) => components[i]!, () => components.length);
  const isStatic = components.every((c) => c.staticSize !== undefined);
  return { staticSize: isStatic ? components.reduce((sum, c) => sum + c.staticSize!, 0) : undefined, ...fields };
}

/** An encoder for `abi.encode(...params)` of the given parameters, built once and reused. */
export function abiEncoder(params: readonly AbiParam[]): (values: readonly AbiValue[]) => Buffer {
  const codec = tuple(params.map(compile));
  return (values) => {
    const buf = Buffer.alloc(codec.size(values));
    codec.write(values, buf, 0);
    return buf;
  };
}
