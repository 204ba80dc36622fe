import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, open } from 'node:fs/promises';
import path from 'node:path';
import { fsyncDir } from './durable-file.js';

export interface ResolvedMasterKey {
  readonly key: Buffer;
  /** `env` from VAULT_MASTER_KEY; `file` from `<dataDir>/master.key`, which sits beside the data it protects. */
  readonly source: 'env' | 'file';
  readonly createdNow: boolean;
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/**
 * The 256-bit key that wraps every local key file. Without VAULT_MASTER_KEY, the first start creates
 * `<dataDir>/master.key` (0600); two processes starting at once agree on one file, because the file is
 * published with link(), which never replaces an existing name.
 */
export async function resolveMasterKey(input: { dataDir: string; masterKeyHex?: string | undefined }): Promise<ResolvedMasterKey> {
  if (input.masterKeyHex !== undefined) {
    if (!HEX64.test(input.masterKeyHex)) throw new Error('VAULT_MASTER_KEY: must be 64 hex characters (a 256-bit key)');
    return { key: Buffer.from(input.masterKeyHex, 'hex'), source: 'env', createdNow: false };
  }
  const file = path.join(input.dataDir, 'master.key');
  const existing = await readMasterKeyFile(file);
  if (existing) return { key: existing, source: 'file', createdNow: false };

  await mkdir(input.dataDir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${randomBytes(32).toString('hex')}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  let createdNow = true;
  try {
    await link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    createdNow = false; // another process won the race: use its key
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  await fsyncDir(input.dataDir);
  const key = await readMasterKeyFile(file);
  if (!key) throw new Error(`master key file ${file} is malformed`);
  return { key, source: 'file', createdNow };
}

async function readMasterKeyFile(file: string): Promise<Buffer | null> {
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (!HEX64.test(text)) throw new Error(`master key file ${file} is malformed (expected 64 hex characters)`);
  return Buffer.from(text, 'hex');
}
