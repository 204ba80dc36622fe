import { createHmac, timingSafeEqual } from 'node:crypto';
import { readdir, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { fsyncDir, publishFileOnce, writeFileDurably } from './durable-file.js';
import { keyRefOfFileName, unsealKey } from './key-file.js';

/**
 * The key directory records a check value of the master key that wraps its files, never the key:
 * HMAC-SHA256(masterKey, "wallet-vault master key check v1"). It lives in the key directory itself, so
 * every instance sharing that directory (several instances on one PostgreSQL database) checks against
 * the same value, and a copy of the directory carries its own.
 */
export const CHECK_FILE = 'master-key.check';
/** Present while `wallet-vault keys rotate-master` has not finished: the check values of both keys. */
export const ROTATION_FILE = 'master-key.rotation';
const CHECK_LABEL = 'wallet-vault master key check v1';

/**
 * Where the master key came from, so that a message names what the operator has to change: the
 * environment variable, the master.key file, or the option an application passed to `localFileKeyStore`
 * (an embedding application never set VAULT_MASTER_KEY, so naming it would send its author astray).
 */
export type MasterKeySource =
  | { readonly kind: 'env' }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'option'; readonly option: 'masterKey' | 'masterKeyHex' }
  /** VAULT_SEAL=shamir: the key the custodians' shares reconstructed. */
  | { readonly kind: 'shares' };

export interface RotationJournal {
  /** Check value of the key the files were wrapped under before the rotation. */
  readonly from: string;
  /** Check value of the key they are being re-wrapped under. */
  readonly to: string;
  readonly started: string;
}

export function masterKeyCheck(key: Buffer): string {
  return createHmac('sha256', key).update(CHECK_LABEL).digest('hex');
}

export function sameCheck(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function readCheck(keysDir: string): Promise<string | null> {
  const json = await readJson(path.join(keysDir, CHECK_FILE));
  if (json === null) return null;
  const check = (json as { hmacSha256?: unknown }).hmacSha256;
  if (typeof check !== 'string' || !/^[0-9a-f]{64}$/.test(check)) throw new Error(`${path.join(keysDir, CHECK_FILE)} is malformed`);
  return check;
}

const checkJson = (check: string) => `${JSON.stringify({ algorithm: 'HMAC-SHA256', label: CHECK_LABEL, hmacSha256: check })}\n`;

/** Records `check` as the directory's check value, replacing any (the last step of a rotation). */
export async function replaceCheck(keysDir: string, check: string): Promise<void> {
  await writeFileDurably(path.join(keysDir, CHECK_FILE), checkJson(check));
}

export async function readRotation(keysDir: string): Promise<RotationJournal | null> {
  const json = (await readJson(path.join(keysDir, ROTATION_FILE))) as Partial<RotationJournal> | null;
  if (json === null) return null;
  if (typeof json.from !== 'string' || typeof json.to !== 'string') throw new Error(`${path.join(keysDir, ROTATION_FILE)} is malformed`);
  return { from: json.from, to: json.to, started: String(json.started) };
}

/** Records that a rotation began, unless one already did: returns the journal in force. */
export async function beginRotation(keysDir: string, journal: RotationJournal): Promise<RotationJournal> {
  if (await publishFileOnce(path.join(keysDir, ROTATION_FILE), `${JSON.stringify(journal)}\n`)) return journal;
  return (await readRotation(keysDir))!;
}

export async function endRotation(keysDir: string): Promise<void> {
  await unlink(path.join(keysDir, ROTATION_FILE)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await fsyncDir(keysDir);
}

export function mismatchMessage(source: MasterKeySource, keysDir: string): string {
  const where = `the key files in ${keysDir} (check value in ${CHECK_FILE})`;
  const rotate = 'to change the master key, run `wallet-vault keys rotate-master` with the current one';
  switch (source.kind) {
    case 'env':
      return `master key mismatch: VAULT_MASTER_KEY is not the key that wrapped ${where}. Set VAULT_MASTER_KEY to the 64-hex content of the master.key those files were created with; ${rotate}`;
    case 'file':
      return `master key mismatch: ${source.path} is not the key that wrapped ${where}. Restore the master.key those files were created with (or set VAULT_MASTER_KEY to its 64-hex content); ${rotate}`;
    case 'option':
      return `master key mismatch: the ${source.option} passed to localFileKeyStore is not the key that wrapped ${where}. Pass the master key those files were created with; ${rotate}`;
    case 'shares':
      return `master key mismatch: the shares submitted reconstruct a key that did not wrap ${where}: they are shares of another vault's master key`;
  }
}

export function rotationMessage(keysDir: string): string {
  return `a master key rotation is in progress (${path.join(keysDir, ROTATION_FILE)}): finish it with \`wallet-vault keys rotate-master --new-key-file <the same file>\` before starting`;
}

/**
 * Null when `key` is the directory's master key; otherwise what is wrong, for the start (which stops)
 * and /readyz (not ready). A directory without a check value gets one: from `key` when no key file
 * exists yet or `key` opens one (a directory from before check values), never from a key that opens
 * none. Instances racing on an empty directory agree on the first recorded value.
 */
export async function verifyMasterKey(keysDir: string, key: Buffer, source: MasterKeySource): Promise<string | null> {
  if (await readRotation(keysDir)) return rotationMessage(keysDir);
  const ours = masterKeyCheck(key);
  let recorded = await readCheck(keysDir);
  if (recorded === null) {
    if (!(await opensAnExistingKeyFile(keysDir, key))) return mismatchMessage(source, keysDir);
    await publishFileOnce(path.join(keysDir, CHECK_FILE), checkJson(ours));
    recorded = await readCheck(keysDir);
  }
  return recorded !== null && sameCheck(recorded, ours) ? null : mismatchMessage(source, keysDir);
}

/** True when the directory has no key file yet or `key` opens the first one found. */
async function opensAnExistingKeyFile(keysDir: string, key: Buffer): Promise<boolean> {
  for (const name of await readdir(keysDir)) {
    const ref = keyRefOfFileName(name);
    if (!ref) continue;
    const opened = unsealKey(key, ref, await readFile(path.join(keysDir, name)));
    opened?.fill(0);
    return opened !== null;
  }
  return true;
}

/** True when `keysDir` records a check value or holds a key file: its master key exists somewhere. */
export async function hasWrappedKeys(keysDir: string): Promise<boolean> {
  try {
    return (await readdir(keysDir)).some((name) => name === CHECK_FILE || keyRefOfFileName(name) !== undefined);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${file} is malformed`);
  }
}
