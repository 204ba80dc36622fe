import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { publishFileOnce } from './durable-file.js';
import { hasWrappedKeys } from './master-key-check.js';

export interface ResolvedMasterKey {
  readonly key: Buffer;
  /** `env` from VAULT_MASTER_KEY; `file` from `<dataDir>/master.key`, which sits beside the data it protects. */
  readonly source: 'env' | 'file';
  readonly createdNow: boolean;
  /** VAULT_MASTER_KEY is set and `<dataDir>/master.key` holds the same key: the file should now go. */
  readonly fileAlsoPresent: boolean;
}

/** A master key that cannot be used as configured; the message says which source and what to do. */
export class MasterKeyError extends Error {
  override readonly name = 'MasterKeyError';
}

export const MASTER_KEY_FILE = 'master.key';
const HEX64 = /^[0-9a-fA-F]{64}$/;

/**
 * The 256-bit key that wraps every local key file. Without VAULT_MASTER_KEY, the first start creates
 * `<dataDir>/master.key` (0600); two processes starting at once agree on one file (publishFileOnce).
 * VAULT_MASTER_KEY and a master.key holding another key stop the start: one of them is wrong, and
 * guessing which would sign with (or create wallets under) a key the operator may not have kept.
 */
export async function resolveMasterKey(input: { dataDir: string; masterKeyHex?: string | undefined }): Promise<ResolvedMasterKey> {
  const file = path.join(input.dataDir, MASTER_KEY_FILE);
  if (input.masterKeyHex !== undefined) {
    if (!HEX64.test(input.masterKeyHex)) throw new MasterKeyError('VAULT_MASTER_KEY: must be 64 hex characters (a 256-bit key)');
    const key = Buffer.from(input.masterKeyHex, 'hex');
    const fromFile = await readMasterKeyFile(file);
    if (fromFile && !timingSafeEqual(fromFile, key)) {
      throw new MasterKeyError(
        `VAULT_MASTER_KEY and ${file} hold different keys. VAULT_MASTER_KEY must hold the 64-hex content of master.key; ` +
          `keep the one the key files were created with (the start checks it against their check value) and delete the file once VAULT_MASTER_KEY holds it`,
      );
    }
    return { key, source: 'env', createdNow: false, fileAlsoPresent: fromFile !== null };
  }
  const existing = await readMasterKeyFile(file);
  if (existing) return { key: existing, source: 'file', createdNow: false, fileAlsoPresent: false };

  const keysDir = path.join(input.dataDir, 'keys');
  if (await hasWrappedKeys(keysDir)) {
    // A fresh master.key here would only be a wrong one, left behind to confuse the next start.
    throw new MasterKeyError(
      `no master key: VAULT_MASTER_KEY is not set and ${file} does not exist, but ${keysDir} holds key files wrapped under one. ` +
        'Set VAULT_MASTER_KEY to the 64-hex content of the master.key they were created with, or restore that file',
    );
  }
  await mkdir(input.dataDir, { recursive: true, mode: 0o700 });
  // Another process may win the race: then its key is the one used.
  const createdNow = await publishFileOnce(file, `${randomBytes(32).toString('hex')}\n`);
  const key = await readMasterKeyFile(file);
  if (!key) throw new MasterKeyError(`master key file ${file} is malformed`);
  return { key, source: 'file', createdNow, fileAlsoPresent: false };
}

/** The key in a master key file (64 hex characters and an optional newline), or null when there is no file. */
export async function readMasterKeyFile(file: string): Promise<Buffer | null> {
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (!HEX64.test(text)) throw new MasterKeyError(`master key file ${file} is malformed (expected 64 hex characters)`);
  return Buffer.from(text, 'hex');
}
