import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/*
 * Issue 50's names on the command line: `wallet-vault master-key split --shares N --threshold M --out-dir DIR`
 * writes share-1.json … share-N.json (0600) and prints no share; `wallet-vault unseal --url --share-file`
 * submits one to a server started with VAULT_SEAL=shamir.
 */
describe('wallet-vault master-key split and unseal', () => {
  const dirs: string[] = [];
  let sealed: TestServer | undefined;
  afterAll(async () => {
    await sealed?.stop({ keepData: true });
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('splits the master key into 0600 share files, and two of them unseal a sealed server', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-split-'));
    const outDir = path.join(await mkdtemp(path.join(tmpdir(), 'wallet-vault-shares-')), 'shares');
    dirs.push(dataDir, path.dirname(outDir));
    const plain = await startTestServer({ dataDir });
    await plain.stop({ keepData: true });
    const env = { VAULT_DATA_DIR: dataDir };

    const split = await runCli(['master-key', 'split', '--shares', '3', '--threshold', '2', '--out-dir', outDir, '--json'], env);
    expect(split.code, split.stderr).toBe(0);
    const outcome = JSON.parse(split.stdout) as { split: string; shares: number; threshold: number; files: string[] };
    expect(outcome).toMatchObject({ shares: 3, threshold: 2 });
    expect((await readdir(outDir)).sort()).toEqual(['share-1.json', 'share-2.json', 'share-3.json']);
    for (const name of ['share-1.json', 'share-2.json', 'share-3.json']) {
      const file = path.join(outDir, name);
      expect((await stat(file)).mode & 0o777, name).toBe(0o600);
      const share = (JSON.parse(await readFile(file, 'utf8')) as { share: string }).share;
      expect(split.stdout + split.stderr).not.toContain(share);
    }
    expect((await stat(outDir)).mode & 0o777).toBe(0o700);
    // Never over share files already there.
    const again = await runCli(['master-key', 'split', '--shares', '3', '--threshold', '2', '--out-dir', outDir], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds share files/);
    const bad = await runCli(['master-key', 'split', '--shares', '3', '--threshold', '4', '--out-dir', `${outDir}-x`], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--threshold: must be an integer from 2 to --shares/);

    await rm(path.join(dataDir, 'master.key'));
    sealed = await startTestServer({ dataDir, env: { VAULT_SEAL: 'shamir' } });
    const first = await runCli(['unseal', '--url', sealed.url, '--share-file', path.join(outDir, 'share-3.json')], {});
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/sealed: 1 of 2 shares submitted/);
    const repeated = await runCli(['unseal', '--url', sealed.url, '--share-file', path.join(outDir, 'share-3.json')], {});
    expect(repeated.code).toBe(1);
    expect(repeated.stderr).toMatch(/refused the share \(409\): share: share 3 of this split was already submitted/);
    const second = await runCli(['unseal', '--url', sealed.url, '--share-file', path.join(outDir, 'share-1.json'), '--json'], {});
    expect(JSON.parse(second.stdout)).toEqual({ sealed: false, threshold: 2, progress: 0 });
    const trail = await sealed.server.vault.listAuditRecords.execute({ limit: 1000 });
    expect(trail.find((r) => r.action === 'master-key.split')?.details).toMatchObject({ split: outcome.split, shares: 3, threshold: 2 });
  });
});
