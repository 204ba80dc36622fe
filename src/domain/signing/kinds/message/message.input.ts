import { invalidArgument } from '../../../errors.js';
import { hasLoneSurrogate } from '../../../unicode.js';
import { hexBytes, isObject } from '../../payload-values.js';

/** A message's field (the body of sign-message; adapters/http/schemas.ts states its JSON). */
export const MESSAGE_FIELDS = ['message'] as const;

/** A message read and checked: the bytes EIP-191 signs. */
export interface MessageInput {
  readonly bytes: Uint8Array;
}

const MESSAGE_SHAPE = 'message: must be a string or {"raw": "0x…"}';
const utf8 = new TextEncoder();

/** Text as its UTF-8 bytes, `{ raw }` (hex or bytes) as it is: viem's signMessage reads them the same way. */
export function readMessage(message: unknown): MessageInput {
  if (typeof message === 'string') {
    // UTF-8 cannot carry a lone surrogate: TextEncoder (viem) would sign U+FFFD in its place, ethers refuses it.
    if (hasLoneSurrogate(message)) throw invalidArgument('message: must be well-formed Unicode text (it contains a lone surrogate)');
    return { bytes: utf8.encode(message) };
  }
  if (message instanceof Uint8Array) return { bytes: message };
  if (isObject(message) && Object.keys(message).length === 1 && message.raw !== undefined) {
    if (message.raw instanceof Uint8Array) return { bytes: message.raw };
    return { bytes: Buffer.from(hexBytes(message.raw, 'message.raw').slice(2), 'hex') };
  }
  throw invalidArgument(MESSAGE_SHAPE);
}
