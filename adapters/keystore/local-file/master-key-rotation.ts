import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileDurably } from './durable-file.js';
import { keyLabelOf, sealKey, unsealKey, wrappedRefOfFileName } from './key-file.js';
import {
  beginRotation,
  endRotation,
  masterKeyCheck,
  mismatchMessage,
  readCheck,
  readRotation,
  replaceCheck,
  sameCheck,
  verifyMasterKey,
  type MasterKeySource,
} from './master-key-check.js';
import { MasterKeyError } from './master-key.js';

export interface RotateMasterKeyInput {
  readonly keysDir: string;
  /** The key the service is configured with now (VAULT_MASTER_KEY or master.key). */
  readonly currentKey: Buffer;
  readonly currentSource: MasterKeySource;
  readonly newKey: Buffer;
  /** Runs once the files are all under the new key, before the check value moves to it (replaces master.key). */
  readonly beforeCommit?: () => Promise<void>;
  /** `done` of `total` key files are under the new key. */
  readonly onProgress?: (progress: { done: number; total: number }) => void;
  /** Test hook: runs after each file this run re-wraps (`durable` false: before its rename). */
  readonly afterRewrap?: (count: number, durable: boolean) => void;
}

export interface RotationOutcome {
  /** Key files under the new key at the end. */
  readonly files: number;
  /** Of them, re-wrapped by this run (the others were done by an earlier, interrupted run). */
  readonly rewrapped: number;
  /** The key directory was already under the new key: nothing to do. */
  readonly alreadyDone: boolean;
}

/**
 * Re-wraps every key file under a new master key, so that a crash at any moment leaves each file
 * complete under the old key or the new one (a durable temp file renamed over it) and a rerun
 * finishes the job. A journal in the key directory records both keys' check values while files are
 * mixed: a service refuses to start on it, and a rerun with a third key is refused. The directory's
 * check value moves to the new key last, then the journal goes.
 */
export async function rotateMasterKey(input: RotateMasterKeyInput): Promise<RotationOutcome> {
  const { keysDir, currentKey, newKey } = input;
  await mkdir(keysDir, { recursive: true, mode: 0o700 });
  const currentCheck = masterKeyCheck(currentKey);
  const newCheck = masterKeyCheck(newKey);
  let journal = await readRotation(keysDir);
  if (!journal) {
    const problem = await verifyMasterKey(keysDir, currentKey, input.currentSource);
    if (problem) throw new MasterKeyError(problem);
    if (sameCheck(currentCheck, newCheck)) return { files: 0, rewrapped: 0, alreadyDone: true };
    journal = await beginRotation(keysDir, { from: currentCheck, to: newCheck, started: new Date().toISOString() });
  }
  if (!sameCheck(journal.to, newCheck)) {
    throw new MasterKeyError(
      `a rotation to another key is in progress (${path.join(keysDir, 'master-key.rotation')}): rerun with the --new-key-file it started with`,
    );
  }
  // After an interrupted run that already replaced master.key, the current key is the new one: every
  // file it cannot open then needs the old key, which is no longer configured.
  const oldKey = sameCheck(journal.from, currentCheck) ? currentKey : undefined;
  if (!oldKey && !sameCheck(journal.to, currentCheck)) throw new MasterKeyError(mismatchMessage(input.currentSource, keysDir));

  // The vaults' HD seed files too: under the old key they would open no more.
  const refs = (await readdir(keysDir)).map(wrappedRefOfFileName).filter((r): r is string => r !== undefined).sort();
  let done = 0;
  let rewrapped = 0;
  input.onProgress?.({ done, total: refs.length });
  for (const ref of refs) {
    const file = path.join(keysDir, `${ref}.key`);
    const sealed = await readFile(file);
    const underNew = unsealKey(newKey, ref, sealed);
    if (underNew) {
      underNew.fill(0);
    } else {
      const privateKey = oldKey ? unsealKey(oldKey, ref, sealed) : null;
      if (!privateKey) throw new MasterKeyError(`${file} opens under neither the current nor the new master key; rotation stopped (rerun once it is restored or removed)`);
      try {
        await writeFileDurably(file, sealKey(newKey, ref, privateKey, keyLabelOf(sealed)), () => input.afterRewrap?.(rewrapped + 1, false));
      } finally {
        privateKey.fill(0);
      }
      rewrapped++;
      input.afterRewrap?.(rewrapped, true);
    }
    done++;
    input.onProgress?.({ done, total: refs.length });
  }
  await input.beforeCommit?.();
  if ((await readCheck(keysDir)) !== newCheck) await replaceCheck(keysDir, newCheck);
  await endRotation(keysDir);
  return { files: refs.length, rewrapped, alreadyDone: false };
}
