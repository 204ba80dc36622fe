import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { API_KEY_ROLES, checkApproverSeparation, DEFAULT_ROLES, parseCidrs, parseRoles, type ApiKeyRole, type Cidr } from '../../src/domain/api-key-access.js';
import { isDomainError } from '../../src/domain/errors.js';
import type { ApiKeyRecord } from '../../src/domain/vault.js';
import { parseAddress } from '../../src/domain/address.js';
import { ConfigError, KEYSTORES, keyStoresHelp } from '../main/config.js';
import { MissingDriverError } from '../optional-driver.js';
import { installKeccak256 } from '../system/keccak.js';
import { registerApprovalCommands } from './approvals.commands.js';
import { registerApproverCommands } from './approvers.commands.js';
import { registerAuditCommands } from './audit.commands.js';
import { registerBackupCommands } from './backup.commands.js';
import { registerGovernanceCommands } from './governance.commands.js';
import { registerKeyImportCommand } from './keys.commands.js';
import { registerKeyExportCommands } from './key-export.commands.js';
import { markRequiredOptions, registerGlobalOptions } from './global-options.js';
import { registerMasterKeyCommands } from './master-key.commands.js';
import { registerOperatorCommands } from './operators.commands.js';
import { registerPolicyCommands } from './policies.commands.js';
import { registerSealCommands } from './seal.commands.js';
import { registerQuarantineCommands } from './quarantine.commands.js';
import { registerWalletCommands } from './wallets.commands.js';
import { registerWebhookCommands } from './webhooks.commands.js';
import { CliRefusal, EXIT, fail, jsonRequested, note, print, proposed } from './output.js';
import { remoteOperator } from './remote-operator.js';

// The domain hashes with the keccak256 it is given (src/domain/keccak.ts): the command line gives it first.
installKeccak256();

// The service's modules (express, ethers, viem, the SDKs) load only for the command that needs them,
// so `--help` and the operator commands answer without paying for the server.
const serve = async () => (await import('./serve.command.js')).serve();
const withManageVaults: typeof import('./operator-context.js').withManageVaults = async (action) =>
  (await import('./operator-context.js')).withManageVaults(action);

const iso = (d: Date | null) => (d ? d.toISOString() : null);
/** An option's parser whose refusal (a DomainError naming the value) is commander's usage error. */
const usageOf =
  <T>(parse: (text: string) => T) =>
  (text: string): T => {
    try {
      return parse(text);
    } catch (error) {
      throw isDomainError(error) ? new InvalidArgumentError(error.message) : error;
    }
  };
/** A key's roles and networks as printed (`allowCidrs` null: from anywhere). */
const accessOf = (k: ApiKeyRecord) => ({
  roles: [...k.roles],
  allowCidrs: k.allowCidrs === null ? null : k.allowCidrs.map((c) => c.text),
  group: k.group ?? null,
  approverAddress: k.approverAddress ?? null,
});
/** A key's lifecycle as printed: null where it has none. */
const lifecycleOf = (k: ApiKeyRecord) => ({
  label: k.label ?? null,
  expires: iso(k.expires ?? null),
  replacedBy: k.replacedBy ?? null,
  overlapEnds: iso(k.overlapEnds ?? null),
  replaces: k.replaces ?? null,
  firstUsed: iso(k.firstUsed ?? null),
});
/** ` label "deploy"; expires 2027-…` for the text lines: what an operator reads a key by. */
const lifecycleText = (k: ApiKeyRecord) => `${k.label == null ? '' : `; label ${JSON.stringify(k.label)}`}${k.expires == null ? '' : `; expires ${k.expires.toISOString()}`}`;

const program = new Command()
  .name('wallet-vault')
  .description(
    'Self-hostable key vault and signing service for Ethereum wallets.\nConfiguration comes from the environment (see docs/configuration.md).\n' +
      `Key stores (VAULT_KEYSTORE): ${keyStoresHelp()}.\n` +
      'Exit codes: 0 success, 1 refused or failed, 2 usage or configuration error.',
  )
  // Before any command is added, so every command inherits it: a usage error throws instead of exiting 1.
  .exitOverride()
  // With --json, commander's own text is replaced by one JSON error line (see the catch below).
  .configureOutput({ writeErr: (text) => jsonRequested() || process.stderr.write(text) })
  .showHelpAfterError();
registerGlobalOptions(program);

program.command('serve').description('run the HTTP server (what `npm start` runs); applies the migrations the database lacks').action(serve);
program
  .command('migrate')
  .description('create or bring up to date the tables of the configured database (the only command but serve that does); a no-op when up to date')
  .option('--json', 'print JSON')
  .action(async (o: { json?: boolean }) => (await import('./migrate.command.js')).migrateCommand(o));

const vaults = program.command('vaults').description('manage vaults');
vaults
  .command('create')
  .description('create a vault')
  .requiredOption('--name <name>', 'name of the vault')
  .option('--account <account>', 'owning account identifier', 'default')
  .option('--json', 'print JSON')
  .action(async (o: { name: string; account: string; json?: boolean }) => {
    const admin = await remoteOperator();
    if (admin) {
      const made = await admin.createVault(o.name, { account: o.account });
      print(!!o.json, { id: made.id, account: made.account, name: made.name }, () => `vault created\n  id:      ${made.id}\n  account: ${made.account}\n  name:    ${made.name}`);
      return;
    }
    // The one command that may start a store (any other refuses a data directory that is not there).
    const vault = await withManageVaults((m) => m.create({ name: o.name, account: o.account }));
    print(!!o.json, { id: vault.id, account: vault.accountId, name: vault.name }, () =>
      `vault created\n  id:      ${vault.id}\n  account: ${vault.accountId}\n  name:    ${vault.name}`,
    );
  });
vaults
  .command('list')
  .description('list vaults')
  .option('--json', 'print JSON')
  .action(async (o: { json?: boolean }) => {
    const admin = await remoteOperator();
    const rows = admin
      ? (await admin.listVaults()).map((v) => ({ id: v.id, account: v.account, name: v.name, created: v.created }))
      : (await withManageVaults((m) => m.list())).map((v) => ({ id: v.id, account: v.accountId, name: v.name, created: iso(v.created) }));
    print(!!o.json, rows, () => rows.map((r) => `${r.id}  ${r.account}  ${r.name}`).join('\n') || '(no vaults)');
  });

const apiKeys = program.command('api-keys').description('manage API keys (a key is shown once, at creation)');
apiKeys
  .command('create')
  .description('create an API key for a vault and print it once')
  .requiredOption('--vault <vaultId>', 'vault the key belongs to')
  // Parsed as options are, before the store is opened: a typo is a usage error (exit 2) that touches nothing.
  .option('--roles <roles>', `what the key may do, comma-separated: ${API_KEY_ROLES.join(', ')} (default: ${DEFAULT_ROLES.join(',')}, every role but approver)`, usageOf(parseRoles))
  .option('--allow-signer-approver', 'let one key hold approver with signer or admin (refused otherwise: approvers get keys of their own)')
  .option('--allow-cidrs <ranges>', 'networks the key may call from, comma-separated (10.0.0.0/8,192.0.2.7/32,2001:db8::/32; default: anywhere)', usageOf(parseCidrs))
  .option('--group <group>', 'the approver group of an approver key: approval rules naming it count only its keys\' votes')
  .option('--approver-address <0x…>', "an approver key's credential: its votes count only signed (EIP-712 Decision) by this Ethereum address", usageOf((text) => parseAddress(text, 'approver-address')))
  .option('--label <label>', 'the key\'s name for people (who holds it, what for): shown beside its id in lists, approvals and the console')
  .option('--expires <when>', 'when the key stops authenticating: a duration (30d, 12h) or an ISO 8601 time with a zone (2027-01-31T00:00Z); default: never')
  .option('--json', 'print JSON')
  .action(async (o: { vault: string; roles?: ApiKeyRole[]; allowCidrs?: Cidr[]; group?: string; approverAddress?: string; allowSignerApprover?: boolean; label?: string; expires?: string; json?: boolean }) => {
    // A usage error (exit 2), as a bad --roles is, before the store is opened.
    try {
      checkApproverSeparation(o.roles ?? [], o.allowSignerApprover === true);
    } catch (error) {
      if (isDomainError(error)) fail(error.message, EXIT.USAGE, 'USAGE');
      throw error;
    }
    const access = {
      ...(o.roles === undefined ? {} : { roles: o.roles }),
      ...(o.allowSignerApprover === true ? { allowSignerApprover: true } : {}),
      ...(o.allowCidrs === undefined ? {} : { allowCidrs: o.allowCidrs }),
      ...(o.group === undefined ? {} : { group: o.group }),
      ...(o.approverAddress === undefined ? {} : { approverAddress: o.approverAddress }),
      ...(o.label === undefined ? {} : { label: o.label }),
      ...(o.expires === undefined ? {} : { expires: o.expires }),
    };
    const admin = await remoteOperator();
    if (admin) {
      const { allowCidrs: cidrs, ...rest } = access;
      const made = await admin.createApiKey(o.vault, { ...rest, ...(cidrs === undefined ? {} : { allowCidrs: cidrs.map((c) => c.text) }) });
      for (const warning of made.warnings ?? []) note(`warning: ${warning}`);
      const { apiKey, vault, id, roles, allowCidrs, group, approverAddress, label, expires, proposal } = made;
      print(!!o.json, { apiKey, vault, id, roles, allowCidrs, group, approverAddress, label, expires, ...(proposal ? { proposal } : {}) }, () =>
        `API key created for vault ${vault} (id ${id}${label === null ? '' : `; label ${JSON.stringify(label)}`}; roles ${roles.join(',')}) as a named operator. It is shown only now; store it safely:\n${apiKey}` +
          proposed(vault, proposal, 'the key authenticates once the approvers sign it'),
      );
      return;
    }
    const { apiKey, record, proposal, warnings } = await withManageVaults((m) => m.createApiKey(o.vault, access));
    for (const warning of warnings ?? []) note(`warning: ${warning}`);
    const { roles, allowCidrs, group, approverAddress } = accessOf(record);
    const { label, expires } = lifecycleOf(record);
    print(!!o.json, { apiKey, vault: record.vaultId, id: record.id, roles, allowCidrs, group, approverAddress, label, expires, ...(proposal ? { proposal } : {}) }, () =>
      `API key created for vault ${record.vaultId} (id ${record.id}${lifecycleText(record)}; roles ${roles.join(',')}${group === null ? '' : `; group ${group}`}` +
        `${approverAddress === null ? '' : `; votes signed by ${approverAddress}`}; from ${allowCidrs?.join(',') ?? 'anywhere'}). ` +
        `It is shown only now; store it safely:\n${apiKey}` +
        proposed(record.vaultId, proposal, 'the key authenticates once the approvers sign it'),
    );
  });
apiKeys
  .command('list')
  .description('list the API keys of a vault (ids, hashes, roles and networks, never the keys)')
  .requiredOption('--vault <vaultId>', 'vault whose keys to list')
  .option('--json', 'print JSON')
  .action(async (o: { vault: string; json?: boolean }) => {
    const admin = await remoteOperator();
    if (admin) {
      // The admin API never answers a key's hash.
      const listed = await admin.listApiKeys(o.vault);
      print(!!o.json, listed, () =>
        listed.map((k) => `${k.id}${k.label === null ? '' : `  ${JSON.stringify(k.label)}`}  created ${k.created}  ${k.revoked ? `revoked ${k.revoked}` : 'active'}  roles ${k.roles.join(',')}`).join('\n') || '(no API keys)',
      );
      return;
    }
    const keys = await withManageVaults((m) => m.listApiKeys(o.vault));
    const rows = keys.map((k) => ({ id: k.id, vault: k.vaultId, hash: k.secretHash, created: iso(k.created), revoked: iso(k.revoked), ...accessOf(k), ...lifecycleOf(k) }));
    print(!!o.json, rows, () =>
      rows
        .map(
          (r) =>
            `${r.id}${r.label === null ? '' : `  ${JSON.stringify(r.label)}`}  sha256 ${r.hash}  created ${r.created}  ${r.revoked ? `revoked ${r.revoked}` : 'active'}` +
            (r.expires === null ? '' : `  expires ${r.expires}`) +
            (r.replacedBy === null ? '' : `  rotated: replaced by ${r.replacedBy}, works until ${r.overlapEnds} or its first use`) +
            `  roles ${r.roles.join(',')}  from ${r.allowCidrs?.join(',') ?? 'anywhere'}` +
            (r.group === null ? '' : `  group ${r.group}`) +
            (r.approverAddress === null ? (r.roles.includes('approver') ? '  votes unsigned (no credential)' : '') : `  votes signed by ${r.approverAddress}`),
        )
        .join('\n') || '(no API keys)',
    );
  });
apiKeys
  .command('revoke')
  .description('revoke an API key; requests with it are refused from then on')
  .addOption(new Option('--id <keyId>', 'id of the key (see api-keys list)').makeOptionMandatory())
  .option('--vault <vaultId>', 'the vault the key belongs to (required with --server: the admin API acts on one vault)')
  .option('--json', 'print JSON')
  .action(async (o: { id: string; vault?: string; json?: boolean }) => {
    const admin = await remoteOperator();
    if (admin && o.vault === undefined) throw new CliRefusal('--vault: required with --server (the vault the key belongs to)', 'USAGE');
    const { proposal } = admin ? await admin.revokeApiKey(o.vault!, o.id) : await withManageVaults((m) => m.revokeApiKey(o.id, undefined, o.vault));
    print(!!o.json, { id: o.id, revoked: true, ...(proposal ? { proposal } : {}) }, () => `API key ${o.id} revoked` + proposed(null, proposal, 'its removal from the signed state takes effect once the approvers sign it; the key is refused from now on'));
  });

apiKeys
  .command('rotate')
  .description('replace an API key by a new one (printed once) with the same roles, group, credential, networks, label and expiry; the old key works until the overlap ends or the new key is first used')
  .requiredOption('--vault <vaultId>', 'vault the key belongs to')
  .addOption(new Option('--id <keyId>', 'id of the key to replace (see api-keys list)').makeOptionMandatory())
  .option('--overlap <duration>', 'how long the old key keeps working unless the new one is used first (0s to 31d)', '1h')
  .option('--json', 'print JSON')
  .action(async (o: { vault: string; id: string; overlap: string; json?: boolean }) => {
    const admin = await remoteOperator();
    if (admin) {
      const r = await admin.rotateApiKey(o.vault, o.id, { overlap: o.overlap });
      print(!!o.json, { apiKey: r.apiKey, vault: r.vault, id: r.id, replaces: r.replaces, overlapEnds: r.overlapEnds, roles: r.roles, allowCidrs: r.allowCidrs, group: r.group, approverAddress: r.approverAddress, label: r.label, expires: r.expires }, () =>
        `API key ${r.replaces} rotated: new key ${r.id} (roles ${r.roles.join(',')}). The old key works until ${r.overlapEnds} or the new key's first use, whichever comes first. It is shown only now; store it safely:\n${r.apiKey}`,
      );
      return;
    }
    const { apiKey, record, replaced } = await withManageVaults((m) => m.rotateApiKey(o.vault, o.id, o.overlap));
    const { roles, allowCidrs, group, approverAddress } = accessOf(record);
    const { label, expires } = lifecycleOf(record);
    const overlapEnds = iso(replaced.overlapEnds ?? null);
    print(!!o.json, { apiKey, vault: record.vaultId, id: record.id, replaces: replaced.id, overlapEnds, roles, allowCidrs, group, approverAddress, label, expires }, () =>
      `API key ${replaced.id} rotated: new key ${record.id}${lifecycleText(record)} (roles ${roles.join(',')}). ` +
        `The old key works until ${overlapEnds} or the new key's first use, whichever comes first. It is shown only now; store it safely:\n${apiKey}`,
    );
  });

apiKeys
  .command('set-roles')
  .description("replace an API key's roles (as at creation: approver with signer or admin needs --allow-signer-approver); its next request is judged by them. On a governed vault: a proposal the approvers sign")
  .requiredOption('--vault <vaultId>', 'vault the key belongs to')
  .addOption(new Option('--id <keyId>', 'id of the key (see api-keys list)').makeOptionMandatory())
  .requiredOption('--roles <roles>', `what the key may do from now on, comma-separated: ${API_KEY_ROLES.join(', ')}`, usageOf(parseRoles))
  .option('--allow-signer-approver', 'let the key hold approver with signer or admin (refused otherwise: approvers get keys of their own)')
  .option('--json', 'print JSON')
  .action(async (o: { vault: string; id: string; roles: ApiKeyRole[]; allowSignerApprover?: boolean; json?: boolean }) => {
    // A usage error (exit 2), as a bad --roles is, before the store is opened.
    try {
      checkApproverSeparation(o.roles, o.allowSignerApprover === true);
    } catch (error) {
      if (isDomainError(error)) fail(error.message, EXIT.USAGE, 'USAGE');
      throw error;
    }
    const options = { allowSignerApprover: o.allowSignerApprover === true };
    const admin = await remoteOperator();
    const changed = admin
      ? await admin.setApiKeyRoles(o.vault, o.id, o.roles, options)
      : await withManageVaults(async (m) => {
          const r = await m.setApiKeyRoles(o.vault, o.id, o.roles, undefined, options);
          return { id: r.id, vault: r.vaultId, roles: [...r.roles], previousRoles: [...r.previousRoles], ...(r.proposal ? { proposal: r.proposal } : {}) };
        });
    const { id, vault, roles, previousRoles, proposal } = changed;
    const same = !proposal && roles.join(',') === previousRoles.join(',');
    print(!!o.json, { id, vault, roles: [...roles], previousRoles: [...previousRoles], ...(proposal ? { proposal } : {}) }, () =>
      proposal
        ? `API key ${id}: roles ${roles.join(',')} proposed (now ${previousRoles.join(',')})` + proposed(vault, proposal, 'they take effect once the approvers sign it')
        : same
          ? `API key ${id} already holds roles ${roles.join(',')}; nothing changed`
          : `API key ${id}: roles ${roles.join(',')} (were ${previousRoles.join(',')})`,
    );
  });

const credential = apiKeys.command('credential').description("an approver key's credential: the address its votes are signed with");
credential
  .command('set')
  .description("attach a credential to an approver key (or replace it): from then on its votes, also those already cast, count only signed by this address")
  .requiredOption('--vault <vaultId>', 'vault the key belongs to')
  .addOption(new Option('--key <keyId>', 'id of the approver key (see api-keys list)').makeOptionMandatory())
  .requiredOption('--approver-address <0x…>', 'the Ethereum address that signs its votes (EIP-712 Decision)', usageOf((text) => parseAddress(text, 'approver-address')))
  .option('--json', 'print JSON')
  .action(async (o: { vault: string; key: string; approverAddress: string; json?: boolean }) => {
    const record = await withManageVaults((m) => m.setApproverAddress(o.vault, o.key, o.approverAddress));
    for (const warning of record.warnings ?? []) note(`warning: ${warning}`);
    const { proposal } = record;
    print(!!o.json, { id: record.id, vault: record.vaultId, approverAddress: record.approverAddress, ...(proposal ? { proposal } : {}) }, () =>
      proposal
        ? `API key ${record.id}: its new credential ${record.approverAddress}` + proposed(record.vaultId, proposal, 'it counts once the approvers sign it')
        : `API key ${record.id}: its votes count only signed by ${record.approverAddress}`,
    );
  });

const keys = program.command('keys').description('operate on wallet keys');
keys
  .command('rewrap')
  .description('re-wrap every key of a wrapping store under its latest key version (after a Transit key rotation)')
  .addOption(new Option('--store <name>', 'key store whose keys to re-wrap').choices(KEYSTORES).default('vault-transit'))
  .option('--json', 'print JSON')
  .action(async (o: { store: string; json?: boolean }) => {
    const [{ SingleBar }, { RewrapKeys }, { withKeyStores }] = await Promise.all([
      import('cli-progress'),
      import('../../src/application/keys/rewrap-keys.use-case.js'),
      import('./operator-context.js'),
    ]);
    // The bar goes to stderr so --json output stays clean.
    const bar = new SingleBar({ stream: process.stderr, format: 'rewrap [{bar}] {value}/{total} keys' });
    const result = await withKeyStores((c) =>
      c.get(RewrapKeys).execute(o.store, ({ done, total }) => {
        if (done === 0) bar.start(total, 0);
        else bar.update(done);
      }),
    );
    bar.stop();
    print(!!o.json, { store: o.store, rewrapped: result.done }, () => `${result.done} keys of ${o.store} re-wrapped under the latest key version`);
  });

registerKeyImportCommand(keys);
registerKeyExportCommands(keys);
registerWalletCommands(program);
registerMasterKeyCommands(keys);
registerQuarantineCommands(keys);
registerAuditCommands(program);
registerPolicyCommands(program);
registerApprovalCommands(program);
registerApproverCommands(program);
registerWebhookCommands(program);
registerGovernanceCommands(program);
registerSealCommands(program);
registerBackupCommands(program);
registerOperatorCommands(program);

markRequiredOptions(program);

/**
 * A chain the server adds with VAULT_CHAINS is a chain for a command only when the command's
 * configuration adds it too: the refusal says where to add it, not only which chains there are.
 */
function withChainHint(message: string): string {
  if (!/^chains: ".*" is not one of /.test(message)) return message;
  return `${message}; a chain added with VAULT_CHAINS (name:chainId) must be in this command's configuration too: the same VAULT_CHAINS, or the server's configuration file with --config`;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) {
    // --help ends here too, with exit code 0. Commander has already written the usage error (and the
    // help) unless --json silenced it; no command at all is a usage error as well.
    if (error.exitCode === 0) process.exit(EXIT.OK);
    if (!jsonRequested()) process.exit(EXIT.USAGE);
    fail(error.code === 'commander.help' ? 'a command is required (see --help)' : error.message.replace(/^error: /, ''), EXIT.USAGE, 'USAGE');
  }
  if (error instanceof ConfigError) fail(error.message, EXIT.USAGE, 'CONFIG');
  // createVault's refusal of a JavaScript fallback (adapters/native-bindings.ts), a configuration error
  // as serve's is; by name, so that starting the CLI does not load the bindings it checks.
  if (error instanceof Error && error.name === 'NativeBindingError') fail(error.message, EXIT.USAGE, 'CONFIG');
  // A configured adapter whose optional driver is not installed (better-sqlite3, pg, pkcs11js, ...): the message names
  // the package and the command that installs it.
  if (error instanceof MissingDriverError) fail(error.message, EXIT.USAGE, 'CONFIG');
  if (error instanceof CliRefusal) fail(error.message, EXIT.REFUSED, error.code);
  // The admin API's refusal (--server): its message and code as the server answered them.
  if (error instanceof Error && error.name === 'VaultError') {
    const { code, status } = error as Error & { code?: string; status: number };
    fail(status === 0 ? `${error.message} (--server)` : error.message, EXIT.REFUSED, code ?? `HTTP_${status}`);
  }
  if (isDomainError(error)) fail(withChainHint(error.message), EXIT.REFUSED, error.code);
  fail(`unexpected error: ${error instanceof Error ? error.message : String(error)}`, EXIT.REFUSED, 'INTERNAL');
});
