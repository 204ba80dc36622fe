import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { publishFileOnce } from '../keystore/local-file/durable-file.js';
import { MASTER_KEY_FILE, MasterKeyError, readMasterKeyFile } from '../keystore/local-file/master-key.js';
import { verifyMasterKey } from '../keystore/local-file/master-key-check.js';
import { MAX_SHARES, parseShare, splitMasterKey } from '../keystore/local-file/master-key-shares.js';
import { ConfigError, loadConfig } from '../main/config.js';
import { CliRefusal } from './output.js';

export interface SplitOutcome {
  readonly split: string;
  readonly shares: number;
  readonly threshold: number;
  readonly files: readonly string[];
  readonly summary: string;
}

/**
 * Splits the master key the server uses (VAULT_MASTER_KEY, else `<dataDir>/master.key`), once checked
 * against the key directory (a wrong key is never split), into `shares` files in `outDir`, each 0600 and
 * published only where no file of that name is. The key itself is never written; the shares are only
 * in the files (not printed, not logged).
 */
export async function splitToFiles(outDirArg: string, shares: number, threshold: number): Promise<SplitOutcome> {
  if (!Number.isInteger(shares) || shares < 2 || shares > MAX_SHARES) throw new ConfigError(`--shares: must be an integer from 2 to ${MAX_SHARES}`);
  if (!Number.isInteger(threshold) || threshold < 2 || threshold > shares) throw new ConfigError('--threshold: must be an integer from 2 to --shares');
  const config = loadConfig();
  const masterKeyFile = path.join(config.dataDir, MASTER_KEY_FILE);
  let key: Buffer | null;
  try {
    key = config.masterKeyHex !== undefined ? Buffer.from(config.masterKeyHex, 'hex') : await readMasterKeyFile(masterKeyFile);
  } catch (error) {
    throw error instanceof MasterKeyError ? new ConfigError(error.message) : error;
  }
  if (key === null) throw new ConfigError(`no master key to split: VAULT_MASTER_KEY is not set and ${masterKeyFile} does not exist`);
  try {
    const keysDir = path.join(config.dataDir, 'keys');
    await mkdir(keysDir, { recursive: true, mode: 0o700 });
    const problem = await verifyMasterKey(keysDir, key, config.masterKeyHex !== undefined ? { kind: 'env' } : { kind: 'file', path: masterKeyFile });
    if (problem !== null) throw new CliRefusal(`${problem}; nothing was split`, 'MASTER_KEY_MISMATCH');
    const outDir = path.resolve(outDirArg);
    await mkdir(outDir, { recursive: true, mode: 0o700 });
    const taken = (await readdir(outDir)).filter((name) => /^share-\d+\.json$/.test(name));
    if (taken.length > 0) throw new CliRefusal(`--out-dir: ${outDir} already holds share files (${taken.slice(0, 3).join(', ')}); choose an empty directory, nothing was split`, 'SHARES_EXIST');
    const texts = await splitMasterKey(key, shares, threshold);
    const files: string[] = [];
    for (const [i, text] of texts.entries()) {
      const file = path.join(outDir, `share-${i + 1}.json`);
      if (!(await publishFileOnce(file, text))) throw new CliRefusal(`--out-dir: ${file} appeared meanwhile; the split is incomplete, delete the directory's share files and split again`, 'SHARES_EXIST');
      files.push(file);
    }
    const split = parseShare(texts[0]).split;
    return {
      split,
      shares,
      threshold,
      files,
      summary: `split ${split}: ${shares} share files in ${outDir}, any ${threshold} of which unseal the vault; hand each to its custodian, then delete ${masterKeyFile} (or unset VAULT_MASTER_KEY) and start the server with VAULT_SEAL=shamir`,
    };
  } finally {
    key.fill(0);
  }
}
