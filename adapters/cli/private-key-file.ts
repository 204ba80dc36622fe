import { readFileSync, statSync } from 'node:fs';
import { CliRefusal } from './output.js';

/**
 * The private key of `--key-file` (an approver's, for a vote or a proposal): its first line, 64 hex digits
 * (0x optional). Refused when others than its owner may read the file (as ssh refuses such a key), never
 * echoed in a message. One reader for every command that signs with a key file.
 */
export function readPrivateKeyFile(file: string): string {
  let text: string;
  try {
    if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
      throw new CliRefusal(`--key-file: ${file} may be read by others than its owner; chmod 600 ${file}`, 'KEY_FILE');
    }
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof CliRefusal) throw error;
    throw new CliRefusal(`--key-file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'KEY_FILE');
  }
  const hex = text.split(/\r?\n/, 1)[0]!.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new CliRefusal(`--key-file: ${file} does not hold a private key (64 hex digits on its first line)`, 'KEY_FILE');
  return `0x${hex}`;
}
