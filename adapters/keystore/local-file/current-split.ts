import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileDurably } from './durable-file.js';

/**
 * The split whose shares unseal this key directory: written by `master-key split` and `master-key
 * resplit` once every share file is durable, so that after a re-split the previous split's shares (which
 * reconstruct the same key) are refused. It is in the key directory, as the check value is, so every
 * instance sharing the directory refuses the same shares; it names the split, never a share. A
 * directory without it (split before this file existed) accepts any split of its key.
 */
export const SPLIT_FILE = 'master-key.split';

export interface CurrentSplit {
  readonly split: string;
  readonly shares: number;
  readonly threshold: number;
}

export async function readCurrentSplit(keysDir: string): Promise<CurrentSplit | null> {
  const file = path.join(keysDir, SPLIT_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let json: Partial<CurrentSplit>;
  try {
    json = JSON.parse(text) as Partial<CurrentSplit>;
  } catch {
    throw new Error(`${file} is malformed`);
  }
  if (typeof json.split !== 'string' || typeof json.shares !== 'number' || typeof json.threshold !== 'number') throw new Error(`${file} is malformed`);
  return { split: json.split, shares: json.shares, threshold: json.threshold };
}

/** Records `current` as the directory's split, replacing the previous one (whose shares are then refused). */
export async function recordCurrentSplit(keysDir: string, current: CurrentSplit): Promise<void> {
  await writeFileDurably(path.join(keysDir, SPLIT_FILE), `${JSON.stringify(current)}\n`);
}
