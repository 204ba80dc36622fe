import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { ImportKeyCommand } from '../../src/application/wallets/import-key.use-case.js';
import { CliRefusal, EXIT, fail, print } from './output.js';
import { passwordOfFile, privateKeyOfFile, readSecretFile } from './private-key-file.js';

interface ImportOptions {
  vault: string;
  name: string;
  keystoreFile?: string;
  passwordFile?: string;
  privateKeyFile?: string;
  json?: boolean;
}

/** A V3 keystore is a few hundred bytes of JSON; anything far larger is not one. */
const KEYSTORE_MAX_BYTES = 64 * 1024;

/**
 * `wallet-vault keys import` (decisions.md): a wallet of an existing key in the current key store (the
 * default one, VAULT_KEYSTORE). The files are read before the store is opened, every buffer of them is
 * zeroed once the import is done or refused, and nothing of them is printed: the answer is the wallet.
 */
export function registerKeyImportCommand(keys: Command): void {
  keys
    .command('import')
    .description(
      'make a wallet of an existing key in the current key store (VAULT_KEYSTORE): a V3 keystore file and its password file, or a raw private key file; ' +
        'the key is read, never printed, and the import audited (key.imported). An address any wallet of this database has is refused.',
    )
    .requiredOption('--vault <vaultId>', 'vault of the new wallet')
    .requiredOption('--name <name>', 'name of the new wallet')
    .option('--keystore-file <file>', 'a V3 keystore (Web3 Secret Storage JSON: geth, MetaMask, ethers, scrypt or pbkdf2); with --password-file')
    .option('--password-file <file>', "the keystore's password: the file's first line, without its line ending (0600, as geth's --password)")
    .option('--private-key-file <file>', 'a raw private key: 64 hex digits, 0x optional, whitespace around them ignored (the file 0600)')
    .option('--json', 'print the wallet as JSON')
    .action(async (o: ImportOptions) => {
      const keystore = o.keystoreFile !== undefined;
      if (keystore === (o.privateKeyFile !== undefined)) fail('keys import: give either --keystore-file (with --password-file) or --private-key-file', EXIT.USAGE);
      if (keystore !== (o.passwordFile !== undefined)) fail('keys import: --password-file goes with --keystore-file, and --keystore-file needs it', EXIT.USAGE);
      const held: Buffer[] = [];
      try {
        const command: ImportKeyCommand = keystore
          ? { vaultId: o.vault, name: o.name, keystore: { json: readKeystore(o.keystoreFile!), password: passwordOfFile(hold(held, readSecretFile(o.passwordFile!, '--password-file'))) } }
          : { vaultId: o.vault, name: o.name, privateKey: privateKeyOfFile(hold(held, readSecretFile(o.privateKeyFile!, '--private-key-file')), '--private-key-file', o.privateKeyFile!) };
        if (command.privateKey) held.push(command.privateKey as Buffer);
        const [{ withKeyStores }, { ImportKey }] = await Promise.all([import('./operator-context.js'), import('../../src/application/wallets/import-key.use-case.js')]);
        const wallet = await withKeyStores((c) => c.get(ImportKey).import(command));
        const view = {
          id: wallet.id,
          account: wallet.accountId,
          vault: wallet.vaultId,
          name: wallet.name,
          address: wallet.address,
          keyStore: wallet.keyStore,
          created: wallet.created.toISOString(),
          updated: wallet.updated.toISOString(),
        };
        print(!!o.json, view, () => `wallet ${wallet.address} imported into vault ${wallet.vaultId} (id ${wallet.id}, key store ${wallet.keyStore}); it signs now`);
      } finally {
        for (const b of held) b.fill(0);
      }
    });
}

function hold(held: Buffer[], bytes: Buffer): Buffer {
  held.push(bytes);
  return bytes;
}

/** The keystore's text: encrypted, so not refused for its mode as the key and password files are. */
function readKeystore(file: string): string {
  try {
    const text = readFileSync(file, 'utf8');
    if (text.length > KEYSTORE_MAX_BYTES) throw new CliRefusal(`--keystore-file: ${file} is over ${KEYSTORE_MAX_BYTES} bytes; it is not a V3 keystore`, 'KEY_FILE');
    return text;
  } catch (error) {
    if (error instanceof CliRefusal) throw error;
    throw new CliRefusal(`--keystore-file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'KEY_FILE');
  }
}
