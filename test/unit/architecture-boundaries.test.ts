import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph, importsOf, packageOf, type SourceFile } from '../support/import-graph.js';

/**
 * The boundaries docs/architecture.md draws ("Rules that keep it that way"), checked on the real import
 * graph of src/, adapters/, lib/ and client/ as the files are today: a new import that crosses one fails
 * here, naming the file, the import and the rule.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');
const graph = importGraph(root, ['src', 'adapters', 'lib', 'client']);
const filesUnder = (dir: string): SourceFile[] => [...graph.values()].filter((f) => rel(f.file).startsWith(dir));

/** The npm packages the core may load: each is pure JavaScript (checked below), none is a driver or an SDK. */
const CORE_PACKAGES = [
  // base32 of the auth signature's nonce (src/domain/auth-signature.ts).
  '@scure/base',
];
/** Node built-ins the core may not use: loading modules by path (the way round this test), processes, threads, files. */
const CORE_FORBIDDEN_BUILTINS = ['node:module', 'node:child_process', 'node:worker_threads', 'node:cluster', 'node:fs', 'node:net', 'node:http'];

/**
 * A key store folder (adapters/keystore/<name>/, any but shared/) may import only these, whatever its
 * name: a new store needs no entry of its own here, and no store imports another. The secp256k1
 * helpers, key cache and signing thread they share; the interface a folder exports (module.ts); the
 * checks of environment variables; the factories' option check, optional-driver loading, and the
 * native-binding guard of the stores that sign here.
 */
const KEY_STORE_FOLDER_MAY_IMPORT = [
  'keystore/shared/',
  'keystore/key-store-module.ts',
  'environment-variables.ts',
  'factory-options.ts',
  'optional-driver.ts',
  'native-bindings.ts',
] as const;
/** `keystore/pkcs11` and the like: a folder of one key store. */
const isKeyStoreFolder = (family: string) => /^keystore\/[^/]+$/.test(family) && family !== 'keystore/shared' && !family.endsWith('.ts');
/** Each store folder's module.ts, as it is today (the registration list may import exactly these). */
const STORE_MODULES = [...new Set(filesUnder('adapters/keystore/').map((f) => rel(f.file).slice('adapters/'.length)))].filter((f) =>
  /^keystore\/[^/]+\/module\.ts$/.test(f),
);

/**
 * The adapter families, and the only places outside itself (and src/) each may import, each with why.
 * A family is a folder of adapters/ (keystore/ and persistence/ one per store); the files at the top of
 * adapters/ are seams: small modules several families share on purpose. Anything not listed is a
 * crossing: it goes through src/ports, or through a seam declared here.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // Seams: shared by the factories, they import no family themselves.
  'factory-options.ts': [],
  'optional-driver.ts': [],
  // The native-binding guard asks the keccak adapter whether its sponge loaded natively.
  'native-bindings.ts': ['system/keccak.ts'],

  // The checks of environment variables' text, shared by the configuration and the key stores' own variables.
  'environment-variables.ts': [],
  // What every key store folder exports (KeyStoreModule); it imports only the KeyStore port of src/.
  'keystore/key-store-module.ts': [],
  // The list of registered stores: each store folder's module.ts, and nothing else of a store.
  'keystore/registered-key-stores.ts': ['keystore/key-store-module.ts', ...STORE_MODULES],
  // The signing thread starts its worker through the one helper that starts workers from their files.
  'keystore/shared': ['system/worker-file.ts', 'system/cpu-budget.ts'],

  // Databases: row mapping and group commit they share; the factories' option check and driver loading;
  // SQLite's WAL checkpointer is a worker thread, started through the one helper that starts workers.
  'persistence/sqlite': ['persistence/sql/', 'factory-options.ts', 'optional-driver.ts', 'system/worker-file.ts'],
  // PostgreSQL counts the shared request rate limit through the rate-limiter-flexible seam of rate-limit/.
  'persistence/postgres': ['persistence/sql/', 'factory-options.ts', 'optional-driver.ts', 'rate-limit/flexible-counter.ts'],
  'persistence/sql': [],

  // The audit trail streamed to syslog and OTLP (docs/operations.md "Audit streaming").
  'audit-stream': [],
  // The operators' OpenID Connect identity provider (openid-client, jose).
  oidc: [],
  chain: [],
  // The encoding of standard payloads (messages, typed data, transactions) with ethers.
  ethereum: [],
  metrics: [],
  // The shared request rate limit's stores (Redis; the counter over rate-limiter-flexible) and ioredis loading.
  'rate-limit': ['optional-driver.ts'],
  replay: [],
  system: [],

  // HTTP knows the chain table (a request names a chain id from it) and nothing of the composition root:
  // adapters/main composes the HTTP layer, never the other way round.
  http: ['chain/chains.ts'],

  // The contract suites and in-memory twins: the twin key store signs with the shared secp256k1 helpers,
  // the twin persistence reuses the in-process job lock.
  testing: ['keystore/shared/secp256k1.ts', 'persistence/sqlite/in-process.job-lock.ts', 'persistence/sql/audit-watch.ts'],

  // The command line: the composition root, the master-key rotation of the local-file store, driver loading,
  // the keccak256 it gives the domain as an entry point (src/domain/keccak.ts), and the HPKE of key exports
  // (the recipient's key pair and the decryption run where no vault is opened).
  cli: ['main/', 'keystore/local-file/', 'optional-driver.ts', 'system/keccak.ts', 'system/key-export-hpke.ts'],

  // Webhook delivery: the loopback rule of the RPC URLs (http:// only to a loopback receiver).
  webhooks: ['chain/rpc-urls.ts'],

  // The approvers' console's WebAuthn relying party (@simplewebauthn/server): nothing of the others.
  webauthn: [],

  // The composition root knows every family but the command line, which is built on it.
  main: ['chain/', 'ethereum/', 'http/', 'keystore/', 'metrics/', 'persistence/', 'rate-limit/', 'replay/', 'system/', 'webhooks/', 'audit-stream/', 'webauthn/', 'oidc/', 'factory-options.ts', 'optional-driver.ts', 'native-bindings.ts', 'environment-variables.ts'],
};

/** The family of a file under adapters/: `keystore/pkcs11`, `http`, `native-bindings.ts`. */
function familyOf(adapterPath: string): string {
  const parts = adapterPath.split('/');
  if (parts.length === 1) return parts[0]!;
  return parts[0] === 'keystore' || parts[0] === 'persistence' ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** Every import that leaves its own folder of src/, adapters/, lib/ or client/ and breaks a rule, as `from -> to: why`. */
function crossings(): string[] {
  const found: string[] = [];
  for (const node of graph.values()) {
    const from = rel(node.file);
    for (const target of node.local) {
      const to = rel(target);
      if (from.startsWith('src/') && !to.startsWith('src/')) found.push(`${from} -> ${to}: the core imports only the core`);
      // Except the EIP-712 messages approvers sign: one definition the vault verifies and the client signs
      // (src/domain/signed-decisions.ts imports nothing; client-import-graph.test.ts holds it so).
      if (from.startsWith('client/') && !to.startsWith('client/') && to !== 'src/domain/signed-decisions.ts') found.push(`${from} -> ${to}: the client imports only the client`);
      if (!from.startsWith('lib/') && to.startsWith('lib/')) found.push(`${from} -> ${to}: lib/ holds the public entry points; nothing inside imports them`);
      if (!from.startsWith('adapters/') || !to.startsWith('adapters/')) continue;
      const family = familyOf(from.slice('adapters/'.length));
      const inside = to.slice('adapters/'.length);
      if (familyOf(inside) === family) continue;
      const allowed = MAY_IMPORT[family] ?? (isKeyStoreFolder(family) ? KEY_STORE_FOLDER_MAY_IMPORT : undefined);
      if (allowed === undefined) found.push(`${from}: adapters/${family} is a family this test does not know; add it to MAY_IMPORT`);
      else if (!allowed.some((seam) => inside === seam || (seam.endsWith('/') && inside.startsWith(seam)))) {
        found.push(`${from} -> ${to}: adapters/${family} may import only ${allowed.join(', ') || 'src/'} (MAY_IMPORT)`);
      }
    }
  }
  return found;
}

/** Whether an installed package builds or loads a native addon (its manifest read directly: `exports` may hide it). */
function isNative(pkg: string): boolean {
  const manifest = JSON.parse(readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as Record<string, unknown>;
  const deps = Object.keys({ ...(manifest.dependencies as object), ...(manifest.optionalDependencies as object) });
  return manifest.gypfile === true || deps.some((d) => ['node-gyp-build', 'node-gyp', 'prebuild-install', 'bindings', 'node-addon-api'].includes(d));
}

describe('the import graph is read from the sources', () => {
  it('finds every kind of import, and none in a comment', () => {
    const refs = importsOf(
      [
        "import { a,\n  b } from './multi-line.js';",
        "import type { T } from './types-only.js';",
        "export * from './re-export.js';",
        "import './side-effect.js';",
        "const m = await import('./dynamic.js');",
        "const native = createRequire(here)('node-gyp-build');",
        "/** import { x } from './in-a-comment.js'; */",
        "// import('./in-a-line-comment.js')",
      ].join('\n'),
    );
    expect(refs.map((r) => `${r.kind} ${r.specifier}`).sort()).toEqual(
      ['dynamic ./dynamic.js', 'require node-gyp-build', 'static ./multi-line.js', 'static ./re-export.js', 'static ./side-effect.js', 'static ./types-only.js'].sort(),
    );
    expect(packageOf('@scure/base')).toBe('@scure/base');
    expect(packageOf('node:fs/promises')).toBe('node:fs');
    expect(packageOf('keccak/package.json')).toBe('keccak');
  });

  it('finds a circle and names its files in order', () => {
    const g = new Map([
      ['a', { local: ['b'] }],
      ['b', { local: ['c'] }],
      ['c', { local: ['a', 'd'] }],
      ['d', { local: [] }],
      ['e', { local: ['e'] }],
    ]);
    expect(importCircles(g)).toEqual(expect.arrayContaining([['a', 'b', 'c', 'a'], ['e', 'e']]));
    expect(importCircles(g)).toHaveLength(2);
  });

  it('covers the whole code base, every relative import resolved', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect([...graph.values()].filter((f) => f.unresolved.length > 0).map((f) => `${rel(f.file)}: ${f.unresolved.join(', ')}`)).toEqual([]);
    const pipeline = graph.get(path.join(root, 'adapters/http/pipeline.ts'));
    expect(pipeline?.local.map(rel)).toContain('adapters/http/error-response.ts');
  });
});

describe('the boundaries hold', () => {
  it('has no import circle anywhere in src/, adapters/, lib/ or client/', () => {
    const circles = importCircles(graph).map((loop) => loop.map(rel).join(' -> '));
    expect(circles, `import circles:\n  ${circles.join('\n  ')}`).toEqual([]);
  });

  it('the core imports nothing of adapters/, lib/ or client/, and no package but pure-JavaScript ones it lists', () => {
    const core = filesUnder('src/');
    expect(core.length).toBeGreaterThan(50);
    const refused: string[] = [];
    for (const node of core) {
      for (const ref of node.packages) {
        const pkg = packageOf(ref.specifier);
        const where = `${rel(node.file)} loads ${ref.specifier}`;
        if (ref.kind === 'require') refused.push(`${where}: by require (the core imports, it does not load modules by name)`);
        else if (pkg.startsWith('node:') ? CORE_FORBIDDEN_BUILTINS.includes(pkg) : !CORE_PACKAGES.includes(pkg)) refused.push(`${where}: not allowed in the core`);
      }
    }
    expect(refused).toEqual([]);
    expect(crossings().filter((c) => c.startsWith('src/'))).toEqual([]);
  });

  it('the packages the core may import are pure JavaScript', () => {
    const natives = CORE_PACKAGES.filter(isNative);
    expect(natives).toEqual([]);
    // The check itself: the packages the vault loads natively are caught.
    expect(isNative('secp256k1')).toBe(true);
    expect(isNative('keccak')).toBe(true);
  });

  it('adapters import each other only through the seams MAY_IMPORT declares; http never imports main', () => {
    expect(crossings()).toEqual([]);
  });

  it('declares every adapter family there is', () => {
    const families = new Set(filesUnder('adapters/').map((f) => familyOf(rel(f.file).slice('adapters/'.length))));
    expect([...families].filter((f) => !(f in MAY_IMPORT) && !isKeyStoreFolder(f))).toEqual([]);
    expect(MAY_IMPORT.http).not.toContain('main/');
    expect(MAY_IMPORT.main).not.toContain('cli/');
  });
});

describe('a key store is one folder plus one line (docs/architecture.md)', () => {
  const storeFolders = [...new Set(filesUnder('adapters/keystore/').map((f) => familyOf(rel(f.file).slice('adapters/'.length))))].filter(isKeyStoreFolder).sort();

  it('no key store folder imports another (they share keystore/shared/ only)', () => {
    expect(storeFolders.length).toBeGreaterThanOrEqual(4);
    const across: string[] = [];
    for (const node of filesUnder('adapters/keystore/')) {
      const from = familyOf(rel(node.file).slice('adapters/'.length));
      if (!isKeyStoreFolder(from)) continue;
      for (const target of node.local) {
        const to = rel(target);
        if (!to.startsWith('adapters/keystore/')) continue;
        const toFamily = familyOf(to.slice('adapters/'.length));
        if (isKeyStoreFolder(toFamily) && toFamily !== from) across.push(`${rel(node.file)} -> ${to}`);
      }
    }
    expect(across, `key store folders importing each other:\n  ${across.join('\n  ')}`).toEqual([]);
    // The rule itself catches one: a store folder reaching into another is not among its seams.
    expect(KEY_STORE_FOLDER_MAY_IMPORT.some((seam) => 'keystore/pkcs11/index.ts'.startsWith(seam))).toBe(false);
  });

  it('every store folder exports its module.ts, and registered-key-stores.ts lists each, and only those', () => {
    expect(storeFolders.filter((folder) => !STORE_MODULES.includes(`${folder}/module.ts`))).toEqual([]);
    const registration = graph.get(path.join(root, 'adapters/keystore/registered-key-stores.ts'));
    expect(registration, 'adapters/keystore/registered-key-stores.ts').toBeDefined();
    const registered = registration!.local.map((f) => rel(f).slice('adapters/'.length)).filter((f) => f !== 'keystore/key-store-module.ts');
    expect(registered.sort()).toEqual(STORE_MODULES.sort());
    // Nothing else names a store's module: the configuration and the composition root go through the list.
    const elsewhere = [...graph.values()].flatMap((node) =>
      node.local
        .map(rel)
        .filter((to) => /^adapters\/keystore\/[^/]+\/module\.ts$/.test(to))
        .filter((to) => rel(node.file) !== 'adapters/keystore/registered-key-stores.ts' && !rel(node.file).startsWith(to.replace(/module\.ts$/, '')))
        .map((to) => `${rel(node.file)} -> ${to}`),
    );
    expect(elsewhere).toEqual([]);
  });
});
