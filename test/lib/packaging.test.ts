import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AbiCoder, ContractFactory, getBytes, id, keccak256, recoverAddress, type Contract } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { startAnvil } from '../support/anvil.js';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const probeDir = path.join(repoRoot, 'test/lib/packaging');

/**
 * npm with the environment of a plain shell: an `npm test` run exports npm_config_* and npm_package_*
 * variables that would otherwise steer the nested npm (its prefix, its package).
 */
async function npm(args: string[], cwd: string, timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'INIT_CWD'));
  return run('npm', args, { cwd, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
}

interface PackedFile {
  path: string;
}
/** What `npm pack` would put in the tarball; nothing is written (the tarball itself comes later). */
async function packList(): Promise<string[]> {
  const { stdout } = await npm(['pack', '--dry-run', '--json', '--ignore-scripts'], repoRoot, 120_000);
  return (JSON.parse(stdout) as { files: PackedFile[] }[])[0]!.files.map((f) => f.path);
}

type ExportsMap = Record<string, string | { types: string; default: string }>;
const manifest = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as {
  exports: ExportsMap;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const entries = Object.entries(manifest.exports).filter(([, target]) => typeof target === 'object') as [string, { types: string; default: string }][];

/** npm's ways of saying it could reach neither the registry nor a cached copy. */
const UNREACHABLE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|ENOTCACHED|request to .* failed/i;

/** Packs the repository into `dir` (dist/ is built by the global setup); the tarball's path. */
async function packInto(dir: string): Promise<string> {
  const { stdout } = await npm(['pack', '--pack-destination', dir, '--json', '--ignore-scripts'], repoRoot, 120_000);
  return path.join(dir, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
}

/**
 * A fresh application in `project` that installs `wanted`, allowing the install scripts of `allowed`
 * (npm 11 runs none unless allowed); skips the test when npm reaches neither the registry nor its cache.
 */
async function installApp(project: string, allowed: string[], wanted: string[], ctx: { skip(note: string): never }): Promise<void> {
  await mkdir(project);
  const allowScripts = { ...Object.fromEntries(allowed.map((pkg) => [pkg, true])), '@scarf/scarf': false };
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'wallet-vault-consumer', private: true, type: 'module', allowScripts }));
  try {
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', ...wanted], project, 840_000);
  } catch (error) {
    const output = `${(error as { stderr?: string }).stderr ?? ''}\n${(error as Error).message}`;
    if (UNREACHABLE.test(output)) {
      const reason = `skipped: npm reached neither the registry nor a cached copy of the dependencies (${output.match(UNREACHABLE)![0]})`;
      console.warn(`packaging test ${reason}`);
      ctx.skip(reason);
    }
    throw error;
  }
}

describe('the npm package', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('holds no tests or benchmarks, and the code and declarations of every entry point', async () => {
    const files = await packList();
    expect(files.filter((f) => /^(test|bench|dist-bench|dist\/test|dist\/bench)\//.test(f) || /\.(test|bench)\.[cm]?[jt]s$/.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(entries.map(([name]) => name)).toEqual(
      expect.arrayContaining(['.', './express', './keystores/local-file', './keystores/azure-key-vault', './persistence/sqlite', './persistence/postgres', './testing', './client', './viem', './ethers']),
    );
    for (const [name, target] of entries) {
      expect(files, `types of ${name}`).toContain(target.types.replace(/^\.\//, ''));
      expect(files, `code of ${name}`).toContain(target.default.replace(/^\.\//, ''));
    }
    // Every compiled module packed is compiled from a source file of today (none left from an earlier build).
    const stale = files.filter((f) => /^dist\/(src|adapters|lib|client)\/.*\.(js|mjs)$/.test(f)).filter((f) => {
      const source = f.replace(/^dist\//, '').replace(/\.js$/, '.ts');
      return !existsSync(path.join(repoRoot, source));
    });
    expect(stale).toEqual([]);
    // Workers are started by file (adapters/system/worker-file.ts), not imported: nothing else would notice one left out.
    expect(files).toEqual(
      expect.arrayContaining(['dist/adapters/keystore/shared/signing.worker.mjs', 'dist/adapters/persistence/sqlite/sqlite.wal-checkpoint.worker.mjs']),
    );
  });

  it('is licensed Apache-2.0, with LICENSE and NOTICE in the tarball, and may be published', async () => {
    const files = await packList();
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'NOTICE']));
    expect(await readFile(path.join(repoRoot, 'LICENSE'), 'utf8')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    const pkg = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as { license?: string; private?: boolean };
    expect({ license: pkg.license, private: pkg.private }).toEqual({ license: 'Apache-2.0', private: undefined });
  });

  it('has every relative link of its packed documents pointing at a file it packs', async () => {
    const files = await packList();
    const packed = new Set(files);
    const broken: string[] = [];
    for (const doc of files.filter((f) => f.endsWith('.md'))) {
      const text = await readFile(path.join(repoRoot, doc), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^([a-z]+:|#)/i.test(target!)) continue; // a web address, or a place in the same page
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(doc), target!.replace(/#.*$/, '')));
        const found = packed.has(resolved) || files.some((f) => f.startsWith(`${resolved.replace(/\/$/, '')}/`));
        if (!found) broken.push(`${doc}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it(
    'installs from its tarball into a fresh project, imports every entry point with its types, and signs through vaultRouter there',
    async (ctx) => {
      const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-pack-'));
      dirs.push(dir);
      const tarball = await packInto(dir);

      // An application of its own on the default path (SQLite, so better-sqlite3, an optional peer it
      // installs beside the tarball), with express and the drivers of three optional adapters (pure
      // JavaScript: pg, node-vault, the Azure SDK); pkcs11js, the AWS SDK and vitest stay out, to show the
      // message their entries give. The PostgreSQL-only project below installs no Azure SDK.
      const project = path.join(dir, 'app');
      // better-sqlite3 may compile from source here (a minute or two on a busy machine).
      await installApp(project, ['better-sqlite3', 'secp256k1', 'keccak'], [
        tarball,
        `express@${manifest.dependencies.express}`,
        `better-sqlite3@${manifest.peerDependencies['better-sqlite3']}`,
        `pg@${manifest.peerDependencies.pg}`,
        `node-vault@${manifest.peerDependencies['node-vault']}`,
        `@azure/keyvault-keys@${manifest.peerDependencies['@azure/keyvault-keys']}`,
        `@azure/identity@${manifest.peerDependencies['@azure/identity']}`,
      ], ctx);

      // Declarations: the probe type-checks against what the tarball ships, nothing from this repository.
      await copyFile(path.join(probeDir, 'types-probe.ts'), path.join(project, 'types-probe.ts'));
      await writeFile(
        path.join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] },
          files: ['types-probe.ts'],
        }),
      );
      await run(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: project });

      await copyFile(path.join(probeDir, 'probe.mjs'), path.join(project, 'probe.mjs'));
      const probe = await run(process.execPath, ['probe.mjs'], { cwd: project, timeout: 120_000 });
      const { imported, sign, clientError, docs, contract } = JSON.parse(probe.stdout.trim().split('\n').at(-1)!);

      // No install-time telemetry in the run-time tree: the reference page's files ship in the package.
      expect(existsSync(path.join(project, 'node_modules/@scarf'))).toBe(false);
      expect(existsSync(path.join(project, 'node_modules/swagger-ui-dist'))).toBe(false);
      const ls = await npm(['ls', '--all', '--parseable'], project, 120_000).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
      expect(ls.stdout).not.toMatch(/@scarf|swagger-ui-dist/);
      expect(docs.status).toBe(200);
      expect(docs.bytes).toBeGreaterThan(100_000);

      expect(imported['wallet-vault'].exports).toEqual(expect.arrayContaining(['createVault', 'DomainError', 'ErrorCode', 'VaultOptionsError']));
      expect(imported['wallet-vault/express'].exports).toContain('vaultRouter');
      expect(imported['wallet-vault/keystores/local-file'].exports).toContain('localFileKeyStore');
      expect(imported['wallet-vault/keystores/vault-transit'].exports).toContain('vaultTransitKeyStore');
      expect(imported['wallet-vault/keystores/azure-key-vault'].exports).toContain('azureKeyVaultKeyStore');
      expect(imported['wallet-vault/persistence/sqlite'].exports).toContain('sqlitePersistence');
      expect(imported['wallet-vault/persistence/postgres'].exports).toContain('postgresPersistence');
      expect(imported['wallet-vault/client'].exports).toEqual(expect.arrayContaining(['VaultClient', 'VaultError']));
      // The ethers signer needs only ethers, a dependency; the viem account needs viem, an optional peer not installed here.
      expect(imported['wallet-vault/ethers'].exports).toContain('VaultSigner');
      expect(imported['wallet-vault/viem'].error).toMatch(/'viem'/);
      // Entries whose driver the application did not install say which package to add.
      expect(imported['wallet-vault/keystores/pkcs11'].error).toMatch(/needs the package pkcs11js.*npm install pkcs11js/);
      expect(imported['wallet-vault/keystores/aws-kms'].error).toMatch(/needs the package @aws-sdk\/client-kms/);
      expect(imported['wallet-vault/keystores/gcp-kms'].error).toMatch(/needs the package @google-cloud\/kms.*npm install @google-cloud\/kms/);
      expect(existsSync(path.join(project, 'node_modules/@google-cloud/kms'))).toBe(false);
      expect(imported['wallet-vault/testing'].error).toMatch(/'vitest'/);
      // Every key store entry the package exports, whichever: its factory, or the package its driver needs.
      const keyStoreEntries = entries.map(([name]) => name).filter((name) => name.startsWith('./keystores/'));
      expect(keyStoreEntries.length).toBeGreaterThanOrEqual(4);
      for (const name of keyStoreEntries) {
        const result = imported[`wallet-vault/${name.slice(2)}`];
        expect(result, name).toBeDefined();
        if (result.error === undefined) expect(result.exports.filter((e: string) => /KeyStore$/.test(e)), name).not.toEqual([]);
        else expect(result.error, name).toMatch(/needs the package (\S+), which is not installed: npm install \1$/);
      }

      // A client error from the installed client carries the stable code a program acts on.
      expect(clientError).toEqual({ isVaultError: true, status: 401, code: 'UNAUTHENTICATED' });
      // The signature is the one the Signable contract checks: over (uniq, nonce, sender, message).
      expect(sign.walletStatus).toBe(200);
      expect(sign.status, JSON.stringify(sign.body)).toBe(200);
      const [to, amount, sig] = sign.body.data.args;
      const coder = AbiCoder.defaultAbiCoder();
      const message = coder.encode(['bytes4', 'address', 'uint256'], [id('mint(address,uint256,(bytes32,bytes32,bytes32,uint8))').slice(0, 10), to, amount]);
      const digest = keccak256(coder.encode(['bytes32', 'bytes32', 'address', 'bytes'], [sign.uniq, sig.nonce, sign.sender, message]));
      expect(recoverAddress(getBytes(digest), { r: sig.r, s: sig.s, v: sig.v })).toBe(sign.signer);

      // The on-chain half ships too: the example contract from the installed tarball, deployed on a real
      // EVM, accepts the vault's signature sent by the request's sender, and only once.
      expect(imported['wallet-vault/contracts'].exports).toEqual(expect.arrayContaining(['ISignable', 'Signable', 'SignableMint']));
      expect(contract.signableSource).toBe(path.join(project, 'node_modules/wallet-vault/contracts/Signable.sol'));
      const anvil = await startAnvil();
      try {
        const mint = await new ContractFactory(contract.abi, contract.bytecode, anvil.account(0)).deploy(sign.signer, sign.uniq);
        await mint.waitForDeployment();
        const sender = anvil.account(1);
        expect(await sender.getAddress()).toBe(sign.sender);
        const asSender = mint.connect(sender) as Contract;
        await (await asSender.getFunction('mint')(to, amount, sig)).wait();
        expect(await mint.getFunction('balanceOf')(to)).toBe(BigInt(amount));
        await expect(asSender.getFunction('mint').staticCall(to, amount, sig)).rejects.toThrow(/signature used/);
      } finally {
        await anvil.stop();
      }
    },
    900_000,
  );
  it(
    'gives a PostgreSQL-only application no better-sqlite3 (its SQLite entry and `serve` on SQLite name the package to install), and its Cloud KMS entry the optional peer it installed',
    async (ctx) => {
      const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-pack-pg-'));
      dirs.push(dir);
      const tarball = await packInto(dir);
      const project = path.join(dir, 'app');
      // This application also uses Cloud KMS: it installs the optional peer, and the entry loads.
      await installApp(project, ['secp256k1', 'keccak'], [tarball, `pg@${manifest.peerDependencies.pg}`, `@google-cloud/kms@${manifest.peerDependencies['@google-cloud/kms']}`], ctx);

      // An optional peer: npm installs it only when asked, so nothing was compiled for SQLite here.
      expect(existsSync(path.join(project, 'node_modules/better-sqlite3'))).toBe(false);
      const importing = (entry: string) =>
        run(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(entry)}); console.log('loaded')`], { cwd: project }).then(
          (r) => r.stdout.trim(),
          (error: { stderr: string }) => error.stderr,
        );
      expect(await importing('wallet-vault/persistence/postgres')).toBe('loaded');
      expect(await importing('wallet-vault/keystores/gcp-kms')).toBe('loaded');
      expect(await importing('wallet-vault')).toBe('loaded');
      expect(await importing('wallet-vault/persistence/sqlite')).toContain(
        'wallet-vault/persistence/sqlite needs the package better-sqlite3, which is not installed: npm install better-sqlite3',
      );
      // The Azure SDK is an optional peer too: not installed unless asked, and its entry names it.
      expect(existsSync(path.join(project, 'node_modules/@azure/keyvault-keys'))).toBe(false);
      expect(existsSync(path.join(project, 'node_modules/@azure/identity'))).toBe(false);
      expect(await importing('wallet-vault/keystores/azure-key-vault')).toContain(
        'wallet-vault/keystores/azure-key-vault needs the package @azure/keyvault-keys, which is not installed: npm install @azure/keyvault-keys',
      );

      // The command an operator runs: on SQLite (no VAULT_DATABASE_URL) it stops as a configuration error.
      const serve = await run(process.execPath, [path.join(project, 'node_modules/wallet-vault/bin/wallet-vault.js'), 'serve'], {
        cwd: project,
        env: { ...process.env, VAULT_DATA_DIR: path.join(dir, 'data'), PORT: '0' },
        timeout: 60_000,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
      expect(serve.stderr).toContain('needs the package better-sqlite3, which is not installed: npm install better-sqlite3');
      expect(serve.code).toBe(2);
    },
    600_000,
  );
});
