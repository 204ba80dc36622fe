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
  let resealed: TestServer | undefined;
  afterAll(async () => {
    await sealed?.stop({ keepData: true });
    await resealed?.stop({ keepData: true });
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

  it('re-splits from the threshold of the current shares into new 0600 files; the old split unseals nothing afterwards', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-resplit-'));
    const root = await mkdtemp(path.join(tmpdir(), 'wallet-vault-reshares-'));
    dirs.push(dataDir, root);
    const [oldDir, newDir] = [path.join(root, 'old'), path.join(root, 'new')];
    const plain = await startTestServer({ dataDir });
    await plain.stop({ keepData: true });
    const env = { VAULT_DATA_DIR: dataDir };
    const split = await runCli(['master-key', 'split', '--shares', '3', '--threshold', '2', '--out-dir', oldDir, '--json'], env);
    expect(split.code, split.stderr).toBe(0);
    const oldSplit = (JSON.parse(split.stdout) as { split: string }).split;
    await rm(path.join(dataDir, 'master.key'));
    const old = (i: number) => path.join(oldDir, `share-${i}.json`);
    const resplit = (files: string[], outDir: string) =>
      runCli(['master-key', 'resplit', ...files.flatMap((f) => ['--share-file', f]), '--shares', '4', '--threshold', '3', '--out-dir', outDir, '--json'], env);

    const short = await resplit([old(1)], newDir);
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/--share-file: 1 share\(s\) given, split .* needs 2; nothing was split/);
    const repeated = await resplit([old(1), old(1)], newDir);
    expect(repeated.code).toBe(1);
    expect(repeated.stderr).toMatch(/--share-file: .*share-1\.json is share 1 again/);
    expect(await readdir(root)).not.toContain('new');

    const done = await resplit([old(3), old(1)], newDir);
    expect(done.code, done.stderr).toBe(0);
    const outcome = JSON.parse(done.stdout) as { split: string; previousSplit: string; shares: number; threshold: number };
    expect(outcome).toMatchObject({ previousSplit: oldSplit, shares: 4, threshold: 3 });
    expect(outcome.split).not.toBe(oldSplit);
    expect((await readdir(newDir)).sort()).toEqual(['share-1.json', 'share-2.json', 'share-3.json', 'share-4.json']);
    const texts = [...(await Promise.all([1, 2, 3].map((i) => readFile(old(i), 'utf8'))))];
    for (const name of await readdir(newDir)) {
      expect((await stat(path.join(newDir, name))).mode & 0o777, name).toBe(0o600);
      texts.push(await readFile(path.join(newDir, name), 'utf8'));
    }
    const secrets = texts.map((t) => (JSON.parse(t) as { share: string }).share);
    for (const secret of secrets) expect(done.stdout + done.stderr).not.toContain(secret);
    // The replaced split re-splits nothing more.
    const again = await resplit([old(1), old(2)], path.join(root, 'again'));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/which a re-split replaced/);

    resealed = await startTestServer({ dataDir, env: { VAULT_SEAL: 'shamir' } });
    const retired = await runCli(['unseal', '--url', resealed.url, '--share-file', old(2)], {});
    expect(retired.code).toBe(1);
    expect(retired.stderr).toMatch(/refused the share \(409\): share: of split .* which a re-split replaced/);
    for (const i of [1, 2]) expect((await runCli(['unseal', '--url', resealed.url, '--share-file', path.join(newDir, `share-${i}.json`)], {})).code).toBe(0);
    const last = await runCli(['unseal', '--url', resealed.url, '--share-file', path.join(newDir, 'share-4.json'), '--json'], {});
    expect(JSON.parse(last.stdout)).toEqual({ sealed: false, threshold: 3, progress: 0 });
    const trail = await resealed.server.vault.listAuditRecords.execute({ limit: 1000 });
    const record = trail.find((r) => r.action === 'master-key.resplit');
    expect(record?.details).toEqual({ previousSplit: oldSplit, split: outcome.split, shares: 4, threshold: 3 });
    expect(trail.find((r) => r.action === 'seal.share-refused')?.details).toMatchObject({ reason: 'retired-split', split: oldSplit });
    const recorded = JSON.stringify(trail);
    for (const secret of secrets) expect(recorded).not.toContain(secret);
  });
});
