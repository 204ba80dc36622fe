import { randomBytes } from 'node:crypto';
import { link, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

/** fsync a directory so a rename or unlink in it survives a power loss. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A fresh temp file (0600, O_EXCL) beside `file` holding `data`, fsynced; returns its path. */
async function writeDurableTemp(file: string, data: Uint8Array | string): Promise<string> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temp;
}

/**
 * Writes `data` to `file` so that after a crash the file is either the old one or the new one, complete:
 * a durable temp file, renamed over the target, then the directory fsynced.
 */
export async function writeFileDurably(
  file: string,
  data: Uint8Array | string,
  /** Test hook: runs once the temp file is durable, before it replaces `file` (a crash test kills there). */
  beforeRename?: () => void,
): Promise<void> {
  const temp = await writeDurableTemp(file, data);
  beforeRename?.();
  try {
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await fsyncDir(path.dirname(file));
}

/**
 * Publishes `data` as `file` only if no such file exists, durably: the temp file is link()ed to the
 * name, which never replaces an existing file. Of processes racing on one directory exactly one wins;
 * the others get false and read the winner's file.
 */
export async function publishFileOnce(file: string, data: Uint8Array | string): Promise<boolean> {
  const temp = await writeDurableTemp(file, data);
  let published = true;
  try {
    await link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    published = false;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  await fsyncDir(path.dirname(file));
  return published;
}
