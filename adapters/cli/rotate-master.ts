import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SingleBar } from 'cli-progress';
import { checkpointKeyFrom } from '../../src/domain/audit-checkpoint.js';
import { publishFileOnce, writeFileDurably } from '../keystore/local-file/durable-file.js';
import { rotateMasterKey } from '../keystore/local-file/master-key-rotation.js';
import { MASTER_KEY_FILE, MasterKeyError, readMasterKeyFile } from '../keystore/local-file/master-key.js';
import { ConfigError, loadConfig } from '../main/config.js';

export interface RotateMasterOutcome {
  readonly keysDir: string;
  readonly files: number;
  readonly rewrapped: number;
  /** `master.key` when the command replaced it; `VAULT_MASTER_KEY` when the operator must update it. */
  readonly newKeyGoesTo: 'master.key' | 'VAULT_MASTER_KEY';
  /** True when the key files were already under the new key: this run changed nothing. */
  readonly alreadyDone: boolean;
  /**
   * The audit checkpoint public keys (base64url) derived from the new and the previous master key: a
   * checkpoint signed before the rotation verifies with `--public-key <previousCheckpointKey>`.
   */
  readonly checkpointKey: string;
  readonly previousCheckpointKey: string;
  readonly summary: string;
}

/**
 * The current key is the one the service would use (VAULT_MASTER_KEY, else `<dataDir>/master.key`). When
 * it came from master.key, that file is replaced by the new key once every key file is re-wrapped;
 * with VAULT_MASTER_KEY the operator puts the new key there (the summary says so).
 */
export async function rotateMaster(newKeyFileArg: string): Promise<RotateMasterOutcome> {
  const config = loadConfig();
  const masterKeyFile = path.join(config.dataDir, MASTER_KEY_FILE);
  const newKeyFile = path.resolve(newKeyFileArg);
  if (newKeyFile === masterKeyFile) throw new ConfigError(`--new-key-file: must not be ${masterKeyFile} itself (the command replaces it at the end)`);
  if (!existsSync(config.dataDir)) throw new ConfigError(`VAULT_DATA_DIR: ${config.dataDir} does not exist: no key files to rotate`);
  try {
    const fromEnv = config.masterKeyHex !== undefined;
    const currentKey = fromEnv ? Buffer.from(config.masterKeyHex!, 'hex') : await readMasterKeyFile(masterKeyFile);
    if (!currentKey) throw new ConfigError(`no master key: VAULT_MASTER_KEY is not set and ${masterKeyFile} does not exist`);
    const newKey = await newKeyFrom(newKeyFile);
    const keysDir = path.join(config.dataDir, 'keys');
    // Progress goes to stderr, so --json output stays clean; cli-progress draws only on a terminal.
    const bar = new SingleBar({ stream: process.stderr, format: 'rotate-master [{bar}] {value}/{total} key files' });
    const killAt = testKillPoint();
    let started = false;
    const result = await rotateMasterKey({
      keysDir,
      currentKey,
      currentSource: fromEnv ? { kind: 'env' } : { kind: 'file', path: masterKeyFile },
      newKey,
      beforeCommit: async () => {
        if (!fromEnv) await writeFileDurably(masterKeyFile, `${newKey.toString('hex')}\n`);
        if (killAt === 'commit') process.kill(process.pid, 'SIGKILL');
      },
      onProgress: ({ done, total }) => {
        if (!started) bar.start(total, done);
        else bar.update(done);
        started = true;
      },
      afterRewrap: (count, durable) => {
        if (typeof killAt === 'object' && count === killAt.count && durable === killAt.durable) process.kill(process.pid, 'SIGKILL');
      },
    });
    if (started) bar.stop();
    const next = fromEnv
      ? `put the content of ${newKeyFile} into VAULT_MASTER_KEY (your secret manager) for every instance, start them, then delete ${newKeyFile}`
      : `${masterKeyFile} now holds the new key: start the servers and delete ${newKeyFile} (or, better, move the key into VAULT_MASTER_KEY and delete both files)`;
    const summary = result.alreadyDone
      ? `the key files in ${keysDir} are already under this key; nothing to do`
      : `${result.files} key files in ${keysDir} are under the new master key (${result.rewrapped} re-wrapped by this run). Next: ${next}`;
    return {
      keysDir,
      files: result.files,
      rewrapped: result.rewrapped,
      newKeyGoesTo: fromEnv ? 'VAULT_MASTER_KEY' : 'master.key',
      alreadyDone: result.alreadyDone,
      checkpointKey: checkpointKeyFrom(newKey).publicKey,
      previousCheckpointKey: checkpointKeyFrom(currentKey).publicKey,
      summary,
    };
  } catch (error) {
    throw error instanceof MasterKeyError ? new ConfigError(error.message) : error;
  }
}

async function newKeyFrom(file: string): Promise<Buffer> {
  const existing = await readMasterKeyFile(file);
  if (existing) return existing;
  // Published before any key file is touched: a crash can never leave files under a key nobody kept.
  await publishFileOnce(file, `${randomBytes(32).toString('hex')}\n`);
  return (await readMasterKeyFile(file))!;
}

/**
 * VAULT_TEST_ROTATE_KILL=<n> kills this process with SIGKILL once the n-th file of this run is
 * re-wrapped; `<n>:before-rename` once its new version is durable but not yet in place; `commit` once
 * every file is done and master.key replaced, before the check value moves. The crash test uses it to
 * stop at exact points rather than at a time.
 */
function testKillPoint(): { count: number; durable: boolean } | 'commit' | undefined {
  if (process.env.VAULT_TEST_ROTATE_KILL === 'commit') return 'commit';
  const match = /^(\d+)(:before-rename)?$/.exec(process.env.VAULT_TEST_ROTATE_KILL ?? '');
  return match ? { count: Number(match[1]), durable: match[2] === undefined } : undefined;
}
