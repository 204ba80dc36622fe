import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { CliRefusal, EXIT, fail, note, print } from './output.js';
import { readSecretFile } from './private-key-file.js';

interface ExportOptions {
  vault: string;
  wallet?: string;
  seed?: boolean;
  recipientKey: string;
  out?: string;
  json?: boolean;
}

/** A public JWK or an export file is a few hundred bytes; anything far larger is not one. */
const SMALL_FILE_MAX = 64 * 1024;

/**
 * `wallet-vault keys export`, `keys export-recipient` and `keys decrypt-export` (docs/keystores.md#key-export):
 * a wallet's key or a vault's HD seed leaves only encrypted to a recipient's X25519 public key (HPKE); the
 * recipient makes the key pair and opens the file. Nothing here prints key material: the export's answer
 * is its envelope (ciphertext), the decryption writes a 0600 file and prints the address it checked.
 */
export function registerKeyExportCommands(keys: Command): void {
  keys
    .command('export')
    .description(
      "export one wallet's private key (--wallet) or the vault's HD seed (--seed), encrypted to a recipient's X25519 public key (HPKE), audited (key.exported) " +
        'and marked exported for ever. On a governed vault the first run proposes it (M approvers sign, then the delay); run it again once the proposal is in force.',
    )
    .requiredOption('--vault <vaultId>', 'vault of the wallet')
    .option('--wallet <address>', 'address of the wallet whose key to export')
    .option('--seed', "export the vault's HD seed (every derived wallet's key) instead of one wallet's key")
    .requiredOption('--recipient-key <file>', 'the recipient\'s X25519 public key, a JWK {"kty":"OKP","crv":"X25519","x":"…"} (keys export-recipient makes one)')
    .option('--out <file>', 'write the encrypted export there (0600) instead of to stdout')
    .option('--json', 'print JSON')
    .action(async (o: ExportOptions) => {
      if ((o.wallet === undefined) === (o.seed !== true)) fail('keys export: give either --wallet ADDRESS or --seed', EXIT.USAGE);
      const [{ recipientPublicKeyOf }, { withKeyStores }, { ExportKey }] = await Promise.all([
        import('../system/key-export-hpke.js'),
        import('./operator-context.js'),
        import('../../src/application/keys/export-key.use-case.js'),
      ]);
      const recipientPublicKey = recipientPublicKeyOf(readSmall(o.recipientKey, '--recipient-key'), '--recipient-key');
      const result = await withKeyStores((c) => c.get(ExportKey).export({ vaultId: o.vault, ...(o.seed ? { seed: true } : { wallet: o.wallet! }), recipientPublicKey }));
      if ('proposal' in result) {
        const { proposal } = result;
        print(!!o.json, { proposal, recipient: result.recipient }, () =>
          `the vault is governed: the export to ${result.recipient} is proposal ${proposal.id} (document ${proposal.documentHash}); ` +
          `once its approvers sign it and its delay passes, run this command again (wallet-vault governance proposals show --vault ${o.vault} --id ${proposal.id})`,
        );
        return;
      }
      const text = `${JSON.stringify(result.envelope, null, 2)}\n`;
      if (o.out === undefined) {
        process.stdout.write(text);
        note(`exported ${what(result.envelope)} to ${result.envelope.recipient}; marked exported at ${result.exported.toISOString()}`);
        return;
      }
      const { writeFileDurably } = await import('../keystore/local-file/durable-file.js');
      await writeFileDurably(path.resolve(o.out), text);
      print(!!o.json, { out: path.resolve(o.out), kind: result.envelope.kind, vault: result.envelope.vault, wallet: result.envelope.wallet ?? null, recipient: result.envelope.recipient, exported: result.exported.toISOString() }, () =>
        `exported ${what(result.envelope)} to ${result.envelope.recipient} into ${o.out} (0600); marked exported at ${result.exported.toISOString()}`,
      );
    });

  keys
    .command('export-recipient')
    .description("make an X25519 key pair for receiving key exports: recipient.public.json (give it to the operator) and recipient.private.json (0600, keep it)")
    .requiredOption('--out-dir <dir>', 'directory to write them to (created if missing; existing files are never replaced)')
    .option('--json', 'print JSON')
    .action(async (o: { outDir: string; json?: boolean }) => {
      const [{ newRecipientKeyPair }, { publishFileOnce }] = await Promise.all([import('../system/key-export-hpke.js'), import('../keystore/local-file/durable-file.js')]);
      const dir = path.resolve(o.outDir);
      const publicFile = path.join(dir, 'recipient.public.json');
      const privateFile = path.join(dir, 'recipient.private.json');
      for (const f of [publicFile, privateFile]) if (existsSync(f)) throw new CliRefusal(`${f} exists already; choose another --out-dir`, 'FILE_EXISTS');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const pair = await newRecipientKeyPair();
      if (!(await publishFileOnce(privateFile, `${JSON.stringify(pair.privateJwk)}\n`))) throw new CliRefusal(`${privateFile} exists already; choose another --out-dir`, 'FILE_EXISTS');
      await publishFileOnce(publicFile, `${JSON.stringify(pair.publicJwk)}\n`);
      await chmod(publicFile, 0o644);
      print(!!o.json, { public: publicFile, private: privateFile, fingerprint: pair.fingerprint }, () => `recipient key ${pair.fingerprint}: public ${publicFile}, private ${privateFile} (0600; keep it, it opens the exports)`);
    });

  keys
    .command('decrypt-export')
    .description("open a key export with the recipient's private key: writes the wallet's private key (0x hex, as keys import --private-key-file takes it) or the seed's 24-word mnemonic to --out (0600) and prints the address it checked")
    .requiredOption('--file <file>', 'the export (keys export --out)')
    .requiredOption('--recipient-private-key <file>', 'recipient.private.json (0600)')
    .requiredOption('--out <file>', 'where to write the key or mnemonic (created 0600, never replaced)')
    .option('--json', 'print JSON')
    .action(async (o: { file: string; recipientPrivateKey: string; out: string; json?: boolean }) => {
      const [{ openKeyExport }, { publishFileOnce }, { addressOfPrivateKey }] = await Promise.all([
        import('../system/key-export-hpke.js'),
        import('../keystore/local-file/durable-file.js'),
        import('../../src/domain/private-key.js'),
      ]);
      const jwk = readSecretFile(o.recipientPrivateKey, '--recipient-private-key');
      let opened: Awaited<ReturnType<typeof openKeyExport>> | undefined;
      let secret: Buffer | undefined;
      try {
        opened = await openKeyExport(readSmall(o.file, '--file'), jwk.toString('utf8'));
        const { envelope, plaintext } = opened;
        let address: string;
        if (envelope.kind === 'wallet') {
          address = addressOfPrivateKey(plaintext, 'export');
          if (address !== envelope.wallet) throw new CliRefusal(`--file: the key inside is of ${address}, not of the wallet ${envelope.wallet} it is labelled with`, 'EXPORT_MISMATCH');
          secret = Buffer.from(`0x${plaintext.toString('hex')}\n`);
        } else {
          const [{ entropyToMnemonic }, { wordlist }] = await Promise.all([import('@scure/bip39'), import('@scure/bip39/wordlists/english')]);
          secret = Buffer.from(`${entropyToMnemonic(plaintext, wordlist)}\n`);
          address = '';
        }
        const out = path.resolve(o.out);
        if (!(await publishFileOnce(out, secret))) throw new CliRefusal(`--out: ${out} exists already; it is never replaced`, 'FILE_EXISTS');
        const view = { out, kind: envelope.kind, vault: envelope.vault, ...(envelope.kind === 'wallet' ? { wallet: address } : {}) };
        print(!!o.json, view, () =>
          envelope.kind === 'wallet'
            ? `the private key of ${address} (vault ${envelope.vault}) is in ${out} (0600); its address checked`
            : `the HD seed of vault ${envelope.vault} is in ${out} (0600) as a 24-word BIP-39 mnemonic; wallet i is at m/44'/60'/0'/0/i`,
        );
      } finally {
        jwk.fill(0);
        opened?.plaintext.fill(0);
        secret?.fill(0);
      }
    });
}

function what(envelope: { kind: string; vault: string; wallet?: string }): string {
  return envelope.kind === 'wallet' ? `the key of wallet ${envelope.wallet}` : `the HD seed of vault ${envelope.vault}`;
}

function readSmall(file: string, option: string): string {
  try {
    const text = readFileSync(file, 'utf8');
    if (text.length > SMALL_FILE_MAX) throw new CliRefusal(`${option}: ${file} is over ${SMALL_FILE_MAX} bytes; it is not what ${option} takes`, 'KEY_FILE');
    return text;
  } catch (error) {
    if (error instanceof CliRefusal) throw error;
    throw new CliRefusal(`${option}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'KEY_FILE');
  }
}
