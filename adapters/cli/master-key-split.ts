import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { recordCurrentSplit, readCurrentSplit } from '../keystore/local-file/current-split.js';
import { publishFileOnce } from '../keystore/local-file/durable-file.js';
import { MASTER_KEY_FILE, MasterKeyError, readMasterKeyFile } from '../keystore/local-file/master-key.js';
import { verifyMasterKey } from '../keystore/local-file/master-key-check.js';
import { combineShares, MAX_SHARES, parseShare, ShareError, splitMasterKey, type MasterKeyShare } from '../keystore/local-file/master-key-shares.js';
import { ConfigError, loadConfig } from '../main/config.js';
import { CliRefusal } from './output.js';

export interface SplitOutcome {
  readonly split: string;
  readonly shares: number;
  readonly threshold: number;
  readonly files: readonly string[];
  readonly summary: string;
}

export interface ResplitOutcome extends SplitOutcome {
  /** The split whose shares reconstructed the key, refused from now on. */
  readonly previousSplit: string;
}

/**
 * Splits the master key the server uses (VAULT_MASTER_KEY, else `<dataDir>/master.key`), once checked
 * against the key directory (a wrong key is never split), into `shares` files in `outDir`, each 0600 and
 * published only where no file of that name is. The key itself is never written; the shares are only
 * in the files (not printed, not logged).
 */
export async function splitToFiles(outDirArg: string, shares: number, threshold: number): Promise<SplitOutcome> {
  checkCounts(shares, threshold);
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
    const keysDir = await keyDirectory(config.dataDir);
    const problem = await verifyMasterKey(keysDir, key, config.masterKeyHex !== undefined ? { kind: 'env' } : { kind: 'file', path: masterKeyFile });
    if (problem !== null) throw new CliRefusal(`${problem}; nothing was split`, 'MASTER_KEY_MISMATCH');
    const written = await writeShareFiles(keysDir, key, outDirArg, shares, threshold);
    return {
      ...written,
      summary: `split ${written.split}: ${shares} share files in ${written.outDir}, any ${threshold} of which unseal the vault; hand each to its custodian, then delete ${masterKeyFile} (or unset VAULT_MASTER_KEY) and start the server with VAULT_SEAL=shamir`,
    };
  } finally {
    key.fill(0);
  }
}

/**
 * New shares of the same master key, from the threshold of the current split's share files: the key is
 * reconstructed in this process only (never written), checked against the shares' key check and the key
 * directory, split anew into `outDir`, and the new split recorded as the directory's, so that the old
 * split's shares unseal nothing afterwards. Refused, with nothing written, for share files that are not
 * all of one split, repeat an index, fall short of its threshold, or are of a split already replaced.
 */
export async function resplitToFiles(shareFiles: readonly string[], outDirArg: string, shares: number, threshold: number): Promise<ResplitOutcome> {
  checkCounts(shares, threshold);
  const config = loadConfig();
  const keysDir = await keyDirectory(config.dataDir);
  const held = await readShareFiles(shareFiles);
  try {
    const first = held[0]!;
    const current = await readCurrentSplit(keysDir);
    if (current !== null && current.split !== first.split) {
      throw new CliRefusal(`--share-file: the shares are of split ${first.split}, which a re-split replaced (the current split is ${current.split}); nothing was split`, 'SPLIT_RETIRED');
    }
    if (held.length < first.threshold) throw new CliRefusal(`--share-file: ${held.length} share(s) given, split ${first.split} needs ${first.threshold}; nothing was split`, 'SHARES_SHORT');
    const key = await combineShares(held);
    if (key === null) throw new CliRefusal('--share-file: the shares do not reconstruct the key of their split (a share was altered); nothing was split', 'SHARES_WRONG_KEY');
    try {
      const problem = await verifyMasterKey(keysDir, key, { kind: 'shares' });
      if (problem !== null) throw new CliRefusal(`--share-file: ${problem}; nothing was split`, 'MASTER_KEY_MISMATCH');
      const written = await writeShareFiles(keysDir, key, outDirArg, shares, threshold);
      return {
        ...written,
        previousSplit: first.split,
        summary: `re-split ${first.split} as ${written.split}: ${shares} share files in ${written.outDir}, any ${threshold} of which unseal the vault; the shares of ${first.split} unseal nothing from now on: hand out the new files and have the old ones destroyed`,
      };
    } finally {
      key.fill(0);
    }
  } finally {
    for (const share of held) share.share.fill(0);
  }
}

function checkCounts(shares: number, threshold: number): void {
  if (!Number.isInteger(shares) || shares < 2 || shares > MAX_SHARES) throw new ConfigError(`--shares: must be an integer from 2 to ${MAX_SHARES}`);
  if (!Number.isInteger(threshold) || threshold < 2 || threshold > shares) throw new ConfigError('--threshold: must be an integer from 2 to --shares');
}

async function keyDirectory(dataDir: string): Promise<string> {
  const keysDir = path.join(dataDir, 'keys');
  await mkdir(keysDir, { recursive: true, mode: 0o700 });
  return keysDir;
}

/** The given share files parsed, all of one split and each index once; a refusal naming the file otherwise. */
export async function readShareFiles(files: readonly string[]): Promise<MasterKeyShare[]> {
  if (files.length === 0) throw new CliRefusal('--share-file: give the threshold of the current split\'s share files, one --share-file each', 'SHARES_SHORT');
  const held: MasterKeyShare[] = [];
  try {
    for (const file of files) {
      let share: MasterKeyShare;
      try {
        share = parseShare(await readFile(file, 'utf8'));
      } catch (error) {
        if (error instanceof ShareError) throw new CliRefusal(`--share-file: ${file} ${error.message}; nothing was split`, 'SHARE_INVALID');
        throw new CliRefusal(`--share-file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'SHARE_FILE_UNREADABLE');
      }
      held.push(share);
      if (share.split !== held[0]!.split) throw new CliRefusal(`--share-file: ${file} is of split ${share.split}, not ${held[0]!.split} as the first; nothing was split`, 'SHARES_MIXED');
      if (held.some((s) => s !== share && s.index === share.index)) throw new CliRefusal(`--share-file: ${file} is share ${share.index} again; give different shares`, 'SHARES_REPEATED');
    }
    return held;
  } catch (error) {
    for (const share of held) share.share.fill(0);
    throw error;
  }
}

/** The share files of `key` in `outDir` (0600, never over a file), then the split recorded as the key directory's. */
async function writeShareFiles(keysDir: string, key: Buffer, outDirArg: string, shares: number, threshold: number) {
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
  // Only once every file is durable: a crash before leaves the previous split in force, never none.
  await recordCurrentSplit(keysDir, { split, shares, threshold });
  return { split, shares, threshold, files, outDir };
}
