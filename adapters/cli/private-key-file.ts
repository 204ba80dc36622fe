import { readFileSync, statSync } from 'node:fs';
import { CliRefusal } from './output.js';

/**
 * The bytes of a file holding a secret (a key, a password), for `option`: refused when others than its
 * owner may read it (as ssh refuses such a key), or when it is over `maxBytes`; never echoed in a message.
 * The buffer is the caller's, to zero once used. One reader for every command that takes a secret file.
 */
export function readSecretFile(file: string, option: string, maxBytes = 64 * 1024): Buffer {
  try {
    const info = statSync(file);
    if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
      throw new CliRefusal(`${option}: ${file} may be read by others than its owner; chmod 600 ${file}`, 'KEY_FILE');
    }
    if (info.size > maxBytes) throw new CliRefusal(`${option}: ${file} is over ${maxBytes} bytes; it is not what ${option} takes`, 'KEY_FILE');
    return readFileSync(file);
  } catch (error) {
    if (error instanceof CliRefusal) throw error;
    throw new CliRefusal(`${option}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'KEY_FILE');
  }
}

/**
 * The private key of `--key-file` (an approver's, for a vote or a proposal): its first line, 64 hex digits
 * (0x optional). Read by readSecretFile.
 */
export function readPrivateKeyFile(file: string): string {
  const bytes = readSecretFile(file, '--key-file');
  const text = bytes.toString('utf8');
  bytes.fill(0);
  const hex = text.split(/\r?\n/, 1)[0]!.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new CliRefusal(`--key-file: ${file} does not hold a private key (64 hex digits on its first line)`, 'KEY_FILE');
  return `0x${hex}`;
}

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
const nibble = (b: number) => (b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x61 && b <= 0x66 ? b - 0x57 : b >= 0x41 && b <= 0x46 ? b - 0x37 : -1);

/**
 * The 32 bytes a raw private key file holds: 64 hex digits, `0x` optional, whitespace around them
 * ignored. Decoded from the file's bytes straight into a fresh buffer (no text copy of the key is made);
 * the caller zeroes both. Refused naming the option and the file, never the content.
 */
export function privateKeyOfFile(bytes: Buffer, option: string, file: string): Buffer {
  let start = 0;
  let end = bytes.length;
  while (start < end && isSpace(bytes[start]!)) start++;
  while (end > start && isSpace(bytes[end - 1]!)) end--;
  if (end - start >= 2 && bytes[start] === 0x30 && (bytes[start + 1] === 0x78 || bytes[start + 1] === 0x58)) start += 2;
  const key = Buffer.alloc(32);
  let valid = end - start === 64;
  for (let i = 0; valid && i < 32; i++) {
    const high = nibble(bytes[start + 2 * i]!);
    const low = nibble(bytes[start + 2 * i + 1]!);
    if (high < 0 || low < 0) valid = false;
    else key[i] = (high << 4) | low;
  }
  if (!valid) {
    key.fill(0);
    throw new CliRefusal(`${option}: ${file} does not hold a private key (64 hex digits, 0x optional)`, 'KEY_FILE');
  }
  return key;
}

/**
 * The password a password file holds: its first line without the line ending (as geth's --password reads
 * it), as a view of `bytes` (zeroing `bytes` zeroes it).
 */
export function passwordOfFile(bytes: Buffer): Buffer {
  let end = bytes.indexOf(0x0a);
  if (end < 0) end = bytes.length;
  if (end > 0 && bytes[end - 1] === 0x0d) end--;
  return bytes.subarray(0, end);
}
