import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const EMPTY_KECCAK = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';

/** The package's entries that reach the domain: every `exports` name but the client, the contracts and package.json. */
const entries = Object.keys(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).exports as object)
  .filter((name) => !/^\.\/(client|contracts|viem|ethers|package\.json)/.test(name))
  .map((name) => (name === '.' ? 'wallet-vault' : `wallet-vault/${name.slice(2)}`));

/**
 * In a process of its own (no test setup giving the hash), imports `entry` by its public name, then asks the
 * built domain's keccak256 (the same module the entry loaded) for the hash of nothing.
 */
async function hashAfterImporting(entry: string | null): Promise<string> {
  const domain = pathToFileURL(path.join(root, 'dist/src/domain/keccak.js')).href;
  const probe = `
${entry === null ? '' : `await import(${JSON.stringify(entry)});`}
const { keccak256 } = await import(${JSON.stringify(domain)});
try { console.log(Buffer.from(keccak256(new Uint8Array(0))).toString('hex')); } catch (error) { console.log(error.message); }
`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], { cwd: root });
  return stdout.trim();
}

describe('every entry point gives the domain its keccak256 before anything hashes', () => {
  it('covers the entries package.json exports', () => {
    expect(entries).toEqual(expect.arrayContaining(['wallet-vault', 'wallet-vault/express', 'wallet-vault/testing', 'wallet-vault/keystores/local-file', 'wallet-vault/keystores/azure-key-vault', 'wallet-vault/keystores/gcp-kms', 'wallet-vault/persistence/postgres']));
    expect(entries).toHaveLength(11);
  });

  it('without an entry point the domain refuses to hash, naming what to call', async () => {
    expect(await hashAfterImporting(null)).toMatch(/^keccak256 was not given to the domain: call installKeccak256\(\)/);
  });

  it.each(entries)('%s gives it', async (entry) => {
    expect(await hashAfterImporting(entry)).toBe(EMPTY_KECCAK);
  });
});
