import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { clientChainsFileText, clientSigningKindsFileText } from '../../adapters/http/client-lists-file.js';
import { buildOpenApiDocument } from '../../adapters/http/openapi/openapi-document.js';
import { approvalSchema } from '../../adapters/http/response-schemas.js';
import { VAULT_ROUTES } from '../../adapters/http/routes.js';
import { CHAINS as CLIENT_CHAINS } from '../../client/chains.js';
import { SIGNING_KINDS as CLIENT_KINDS } from '../../client/signing-kinds.js';
import { approvalKind } from '../../src/domain/approval.js';
import { CHAIN_IDS, CHAIN_TABLE, CHAINS, RPC_CHAINS } from '../../src/domain/chains.js';
import { POLICY_KINDS } from '../../src/domain/policy/policy-document.js';
import { parsePolicyDocument } from '../../src/domain/policy/policy-document.parse.js';
import { REGISTERED_APPLICATION_KINDS } from '../../src/application/signing/kinds/registered-application-kinds.js';
import { REGISTERED_SIGNING_KINDS, SIGNING_KIND_NAMES, STANDARD_KIND_NAMES } from '../../src/domain/signing/kinds/registered-signing-kinds.js';
import { importsOf, resolveRelative } from '../support/import-graph.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KINDS_DIR = path.join(root, 'src/domain/signing/kinds');
const REGISTRY = path.join(KINDS_DIR, 'registered-signing-kinds.ts');
const APPLICATION_KINDS_DIR = path.join(root, 'src/application/signing/kinds');
const APPLICATION_REGISTRY = path.join(APPLICATION_KINDS_DIR, 'registered-application-kinds.ts');
const names = REGISTERED_SIGNING_KINDS.map((kind) => kind.name);

/** Every .ts file under `dir`, declaration files left out. */
const sourcesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    const file = path.join(dir, entry);
    if (statSync(file).isDirectory()) return entry === 'node_modules' ? [] : sourcesUnder(file);
    return file.endsWith('.ts') && !file.endsWith('.d.ts') ? [file] : [];
  });

/**
 * `'a', 'b'` or `'a' | 'b'`: two of `words` side by side as quoted string literals, the way a list of them
 * is written by hand (backticks left out: comments name a kind or two in them).
 */
const handWrittenList = (words: readonly string[]) => {
  // Kind and chain names are lower-case letters, digits and `-`: nothing to escape.
  const one = (group: number) => `(['"])(?:${words.join('|')})\\${group}`;
  return new RegExp(`${one(1)}\\s*[,|]\\s*${one(2)}`);
};

/** The source files of the package's code: the contract suites' data (adapters/testing) names chains as any test does. */
const packageSources = () =>
  ['src', 'adapters', 'lib', 'client'].flatMap((dir) => sourcesUnder(path.join(root, dir))).filter((file) => !file.startsWith(path.join(root, 'adapters/testing') + path.sep));

/** The OpenAPI schema a JSON pointer of the document names, `$ref`s followed. */
function schemaAt(document: Record<string, any>, pointer: readonly string[]): any {
  let node: any = document;
  for (const key of pointer) {
    node = node[key];
    while (typeof node?.$ref === 'string') node = node.$ref.slice(2).split('/').reduce((n: any, k: string) => n[k], document);
  }
  return node;
}

describe('the signing kinds: one registry, everything else read from it', () => {
  const document = buildOpenApiDocument() as unknown as Record<string, any>;
  const shipped = JSON.parse(readFileSync(path.join(root, 'openapi.json'), 'utf8')) as Record<string, any>;

  it('registers each kind once, each module under a folder of its name', () => {
    expect(new Set(names).size).toBe(names.length);
    expect(SIGNING_KIND_NAMES).toEqual(names);
    expect(STANDARD_KIND_NAMES).toEqual(REGISTERED_SIGNING_KINDS.filter((k) => k.standard).map((k) => k.name));
    const folders = readdirSync(KINDS_DIR).filter((entry) => statSync(path.join(KINDS_DIR, entry)).isDirectory());
    expect(folders.sort()).toEqual([...names].sort());
    for (const kind of REGISTERED_SIGNING_KINDS) {
      expect(kind.standard, kind.name).toBe(kind.requestField !== null);
      expect(kind.standard ? 'describeHeld' in kind : !('describeHeld' in kind), kind.name).toBe(true);
    }
  });

  it("gives the OpenAPI enums (the dry run's kind, an approval's kind), in openapi.json as the code renders it", () => {
    for (const doc of [document, shipped]) {
      const dryRun = schemaAt(doc, ['paths', '/api/v1/vaults/{vaultId}/policy/evaluate', 'post', 'requestBody', 'content', 'application/json', 'schema']);
      expect(dryRun.properties.kind.enum).toEqual(names);
      expect(schemaAt(doc, ['components', 'schemas', 'Approval']).properties.kind.enum).toEqual(names);
    }
  });

  it("gives an approval's result schemas and the fields of a held standard request", () => {
    const result = schemaAt(document, ['components', 'schemas', 'Approval']).properties.result;
    const refs = (result.anyOf ?? result.oneOf).flatMap((s: any) => (s.$ref ? [s.$ref.split('/').pop()] : (s.anyOf ?? s.oneOf ?? []).map((t: any) => t.$ref?.split('/').pop())));
    expect(refs.filter(Boolean)).toEqual([...new Set(REGISTERED_SIGNING_KINDS.map((kind) => kind.resultSchema))]);
    for (const id of refs.filter(Boolean)) expect(document.components.schemas[id], id).toBeDefined();
    const fields = Object.keys(approvalSchema.shape.request.options[1].shape);
    for (const kind of REGISTERED_SIGNING_KINDS) if (kind.requestField !== null) expect(fields, kind.name).toContain(kind.requestField);
  });

  it("gives each standard kind's route from its facts: one POST /wallets/{address}/<operation> each, under its operationId", () => {
    for (const kind of REGISTERED_SIGNING_KINDS) {
      if (!kind.standard) continue;
      const mounted = VAULT_ROUTES.filter((route) => route.operationId === kind.route.operationId);
      expect(mounted.map((route) => [route.method, route.path, route.body, route.role]), kind.name).toEqual([['POST', `/wallets/:address/${kind.route.operation}`, 'signed-json', 'signer']]);
      expect(schemaAt(document, ['paths', `/api/v1/vaults/{vaultId}/wallets/{address}/${kind.route.operation}`, 'post']).operationId, kind.name).toBe(kind.route.operationId);
    }
  });

  it("gives the client's union: client/signing-kinds.ts is as the build writes it", () => {
    // Stale after a kind was registered: `npm run build` writes it again.
    expect(readFileSync(path.join(root, 'client/signing-kinds.ts'), 'utf8')).toBe(clientSigningKindsFileText());
    expect(CLIENT_KINDS).toEqual(names);
    expect(readFileSync(path.join(root, 'client/types.ts'), 'utf8')).toMatch(/^export type ApprovalKind = SigningKindName;$/m);
    expect(readFileSync(path.join(root, 'client/types.ts'), 'utf8')).toMatch(/^export type PolicyKind = SigningKindName;$/m);
  });

  it("gives the policy parser's accepted kinds: each registered one, nothing else", () => {
    expect(POLICY_KINDS).toEqual(names);
    const kinds = (kind: string) => parsePolicyDocument({ version: 2, rules: [{ id: 'r', effect: 'allow', kinds: [kind] }] }, { chains: [] });
    for (const name of names) expect(kinds(name).rules[0]!.kinds, name).toEqual([name]);
    expect(() => kinds('signature')).toThrow(`rules[0].kinds[0]: "signature" is not one of ${names.join(', ')}`);
  });

  it("reads an approval's kind from its held request: a standard payload's `kind`, else a Sign call", () => {
    for (const name of STANDARD_KIND_NAMES) expect(approvalKind({ request: JSON.stringify({ kind: name, address: '0x' }) })).toBe(name);
    expect(approvalKind({ request: JSON.stringify({ chain: 'local', abi: {}, args: [] }) })).toBe('call');
  });

  it("is written nowhere else: no list of two kind names by hand in the package's code", () => {
    const generated = [path.join(root, 'client/signing-kinds.ts')];
    const list = handWrittenList(names);
    const offenders = packageSources().filter((file) => !file.startsWith(`${KINDS_DIR}${path.sep}`) && !generated.includes(file) && list.test(readFileSync(file, 'utf8')));
    expect(offenders.map((file) => path.relative(root, file))).toEqual([]);
    // The check can fail: the lists this registry replaced are what it finds.
    expect(list.test("export type PayloadKind = 'message' | 'typed-data' | 'transaction';")).toBe(true);
    expect(list.test("z.enum(['call', 'message'])")).toBe(true);
    expect(list.test('names `message`, `transaction` in a comment')).toBe(false);
  });

  it("states each standard kind's body with the fields its reader reads (its field table)", () => {
    for (const kind of REGISTERED_SIGNING_KINDS) {
      if (!kind.standard) continue;
      const operation = Object.values(document.paths as Record<string, Record<string, any>>)
        .flatMap((item) => Object.values(item))
        .find((op) => op.operationId === kind.route.operationId);
      const body = operation.requestBody.content['application/json'].schema;
      const resolved = typeof body.$ref === 'string' ? schemaAt(document, body.$ref.slice(2).split('/')) : body;
      expect(Object.keys(resolved.properties), kind.name).toEqual([...kind.fields]);
    }
  });

  it('has one application module per kind, in the registry\'s order, each in a folder of its name that imports no other kind\'s', () => {
    expect(REGISTERED_APPLICATION_KINDS.map((entry) => entry.kind)).toEqual([...REGISTERED_SIGNING_KINDS]);
    const files = sourcesUnder(APPLICATION_KINDS_DIR).filter((file) => path.dirname(file) !== APPLICATION_KINDS_DIR);
    const folderOf = (dir: string, file: string) => path.relative(dir, file).split(path.sep)[0];
    expect([...new Set(files.map((file) => folderOf(APPLICATION_KINDS_DIR, file)))].sort()).toEqual([...names].sort());
    for (const file of files) {
      const kind = folderOf(APPLICATION_KINDS_DIR, file);
      for (const { specifier } of importsOf(readFileSync(file, 'utf8'))) {
        const target = specifier.startsWith('.') ? resolveRelative(file, specifier) : null;
        if (target === null) continue;
        // Its own folder, the shared interface; of the domain's kinds, only its own module.
        if (target.startsWith(`${APPLICATION_KINDS_DIR}${path.sep}`) && path.dirname(target) !== APPLICATION_KINDS_DIR) expect(folderOf(APPLICATION_KINDS_DIR, target), `${path.relative(root, file)} imports ${specifier}`).toBe(kind);
        if (target.startsWith(`${KINDS_DIR}${path.sep}`)) expect(folderOf(KINDS_DIR, target), `${path.relative(root, file)} imports ${specifier}`).toBe(kind);
      }
    }
    const registered = importsOf(readFileSync(APPLICATION_REGISTRY, 'utf8'))
      .map(({ specifier }) => resolveRelative(APPLICATION_REGISTRY, specifier))
      .filter((target): target is string => target !== null && target.startsWith(`${APPLICATION_KINDS_DIR}${path.sep}`) && path.dirname(target) !== APPLICATION_KINDS_DIR);
    expect(registered.map((target) => folderOf(APPLICATION_KINDS_DIR, target)).sort()).toEqual([...names].sort());
  });

  it('keeps kind modules apart: a kind imports no other kind, only the registry lists them', () => {
    const files = sourcesUnder(KINDS_DIR).filter((file) => file !== REGISTRY);
    const folderOf = (file: string) => path.relative(KINDS_DIR, file).split(path.sep)[0];
    // One folder per kind, each with its module (`<name>.kind.ts`) beside what only it reads (its field table and reader).
    expect([...new Set(files.map(folderOf))].sort()).toEqual([...names].sort());
    for (const name of names) expect(files).toContain(path.join(KINDS_DIR, name, `${name}.kind.ts`));
    for (const file of files) {
      for (const { specifier } of importsOf(readFileSync(file, 'utf8'))) {
        const target = specifier.startsWith('.') ? resolveRelative(file, specifier) : null;
        if (target === null || !target.startsWith(`${KINDS_DIR}${path.sep}`)) continue;
        expect(folderOf(target), `${path.relative(root, file)} imports ${specifier}`).toBe(folderOf(file));
      }
    }
    const registered = importsOf(readFileSync(REGISTRY, 'utf8')).map(({ specifier }) => folderOf(resolveRelative(REGISTRY, specifier)!));
    expect(registered.sort()).toEqual([...names].sort());
  });
});

describe('the chains: one table, everything else read from it', () => {
  const tableNames = CHAIN_TABLE.map((chain) => chain.name);

  it('gives the names Sign accepts, those with an RPC (all but local) and their chain ids', () => {
    expect(CHAINS).toEqual(tableNames);
    expect(RPC_CHAINS).toEqual(tableNames.filter((name) => name !== 'local'));
    expect(Object.keys(CHAIN_IDS)).toEqual(RPC_CHAINS);
    expect(new Set(Object.values(CHAIN_IDS)).size).toBe(RPC_CHAINS.length);
  });

  it("gives the client's Chain: client/chains.ts is as the build writes it", () => {
    expect(readFileSync(path.join(root, 'client/chains.ts'), 'utf8')).toBe(clientChainsFileText());
    expect(CLIENT_CHAINS).toEqual(tableNames);
    expect(readFileSync(path.join(root, 'client/types.ts'), 'utf8')).toMatch(/^export type Chain = ChainName \| \(string & \{\}\);$/m);
  });

  it("is written nowhere else: no list of two chain names by hand in the package's code", () => {
    const generated = [path.join(root, 'client/chains.ts'), path.join(root, 'src/domain/chains.ts')];
    // `local` alone is named in many places (a chain without RPC); a list names two of the others.
    const list = handWrittenList(RPC_CHAINS);
    const offenders = packageSources().filter((file) => !generated.includes(file) && list.test(readFileSync(file, 'utf8')));
    expect(offenders.map((file) => path.relative(root, file))).toEqual([]);
    expect(list.test("['ethereum', 'sepolia']")).toBe(true);
  });
});
