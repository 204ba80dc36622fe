import { keccak256 } from '../keccak.js';
import { escapeControlCharacters } from '../unicode.js';

/**
 * Why a simulated call reverted, from its revert data: Solidity's `Error(string)` (a `require` or
 * `revert("…")`), `Panic(uint256)` with what the code means, a custom error named when an ABI given
 * knows its selector, else the selector and the raw data. The text is the node's, i.e. the contract's:
 * control characters escaped and cut, as every caller-controlled text the vault echoes.
 */
export interface RevertReason {
  /** `error` Error(string), `panic` Panic(uint256), `custom` another selector, `empty` no data (a bare revert). */
  readonly kind: 'error' | 'panic' | 'custom' | 'empty';
  /** For people: `Error("not enough")`, `Panic(0x11: arithmetic overflow or underflow)`, `NotOwner(address)`, `custom error 0x…`. */
  readonly reason: string;
  /** The first 4 bytes of the data (lower-case hex), or null without them. */
  readonly selector: string | null;
  /** The revert data as the node gave it (lower-case hex, cut to MAX_REVERT_DATA_BYTES). */
  readonly data: string;
}

const ERROR_SELECTOR = '0x08c379a0';
const PANIC_SELECTOR = '0x4e487b71';
/** The most revert data a reason keeps: enough for any reason people read, bounded for records and answers. */
export const MAX_REVERT_DATA_BYTES = 1024;
const MAX_REASON_TEXT = 200;

/** What the Solidity compiler's panic codes mean (docs.soliditylang.org, "Panic via assert and Error via require"). */
const PANICS: Readonly<Record<number, string>> = {
  0x00: 'generic compiler panic',
  0x01: 'assert failed',
  0x11: 'arithmetic overflow or underflow',
  0x12: 'division or modulo by zero',
  0x21: 'conversion to an enum out of range',
  0x22: 'incorrectly encoded storage byte array',
  0x31: 'pop on an empty array',
  0x32: 'array index out of bounds',
  0x41: 'too much memory allocated',
  0x51: 'call to a zero-initialised function pointer',
};

/**
 * Decodes revert data (0x hex). `knownErrors` are error signatures (`NotOwner(address)`) from an ABI the
 * request or the rule carries: a custom error whose selector is one of them is named by it.
 */
export function decodeRevertReason(data: string, knownErrors: readonly string[] = []): RevertReason {
  const hex = /^0x(?:[0-9a-fA-F]{2})*$/.test(data) ? data.toLowerCase() : '0x';
  const kept = hex.slice(0, 2 + MAX_REVERT_DATA_BYTES * 2);
  if (hex.length < 10) return { kind: 'empty', reason: hex === '0x' ? 'reverted without a reason' : `reverted with data ${kept}`, selector: null, data: kept };
  const selector = hex.slice(0, 10);
  const body = hex.slice(10);
  if (selector === ERROR_SELECTOR) {
    const text = abiString(body);
    if (text !== null) return { kind: 'error', reason: `Error(${JSON.stringify(shortText(text))})`, selector, data: kept };
  }
  if (selector === PANIC_SELECTOR && body.length === 64) {
    const code = BigInt(`0x${body}`);
    const meaning = code <= 0xffn ? PANICS[Number(code)] : undefined;
    return { kind: 'panic', reason: `Panic(0x${code.toString(16)}: ${meaning ?? 'unknown panic code'})`, selector, data: kept };
  }
  const known = knownErrors.find((signature) => errorSelector(signature) === selector);
  const reason = known === undefined ? `custom error ${selector} (data ${kept})` : `${known} (data ${kept})`;
  return { kind: 'custom', reason, selector, data: kept };
}

/** The selector of an error signature (`NotOwner(address)`): keccak256 of its text, first 4 bytes. */
export function errorSelector(signature: string): string {
  return `0x${keccak256(Buffer.from(signature, 'utf8')).subarray(0, 4).toString('hex')}`;
}

/** The one `string` of an ABI-encoded tuple (offset, length, bytes), or null when it is not that. */
function abiString(body: string): string | null {
  if (body.length < 128) return null;
  const offset = Number.parseInt(body.slice(0, 64), 16);
  if (offset !== 32) return null;
  const length = Number.parseInt(body.slice(64, 128), 16);
  if (!Number.isSafeInteger(length) || body.length < 128 + length * 2) return null;
  return Buffer.from(body.slice(128, 128 + length * 2), 'hex').toString('utf8');
}

function shortText(text: string): string {
  const escaped = escapeControlCharacters(text);
  return escaped.length > MAX_REASON_TEXT ? `${escaped.slice(0, MAX_REASON_TEXT - 3)}...` : escaped;
}
