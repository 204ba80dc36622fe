// Type-checked by test/lib/packaging.test.ts inside the fresh project, against the declarations the
// tarball ships (no paths, no sources): every entry point resolves with the types an application uses.
import {
  createVault,
  DomainError,
  ErrorCode,
  VaultOptionsError,
  type KeyStore,
  type Persistence,
  type Principal,
  type RecordSubmissionCommand,
  type SignCallCommand,
  type SignResult,
  type Vault,
} from 'wallet-vault';
import { vaultRouter, type VaultRouterOptions } from 'wallet-vault/express';
import { localFileKeyStore, type LocalFileKeyStoreOptions } from 'wallet-vault/keystores/local-file';
import { pkcs11KeyStore } from 'wallet-vault/keystores/pkcs11';
import { awsKmsKeyStore } from 'wallet-vault/keystores/aws-kms';
import { gcpKmsKeyStore, type GcpKmsKeyStoreOptions } from 'wallet-vault/keystores/gcp-kms';
import { vaultTransitKeyStore } from 'wallet-vault/keystores/vault-transit';
import { azureKeyVaultKeyStore, type AzureKeyVaultKeyStoreOptions } from 'wallet-vault/keystores/azure-key-vault';
import { sqlitePersistence } from 'wallet-vault/persistence/sqlite';
import { postgresPersistence } from 'wallet-vault/persistence/postgres';
import { describeKeyStoreContract, inMemoryPersistence, type KeyStoreFixture } from 'wallet-vault/testing';
import { VaultClient, VaultError, type VaultErrorCode } from 'wallet-vault/client';
import { SignableMint } from 'wallet-vault/contracts';
import { VaultSigner } from 'wallet-vault/ethers';

const storeOptions: LocalFileKeyStoreOptions = { keysDir: '/tmp/keys', masterKeyHex: '00'.repeat(32) };
const store: KeyStore = localFileKeyStore(storeOptions);
const persistence: Persistence = inMemoryPersistence();
const routerOptions: VaultRouterOptions = { bodyLimitBytes: 1024, health: true };
const vault: Promise<Vault> = createVault({ persistence, keyStores: [store] });
const code: ErrorCode = ErrorCode.KEYSTORE_UNAVAILABLE;
// The in-process API is typed end to end: a command built by hand, the use case's result as declared.
const signed = async (v: Vault, principal: Principal): Promise<string> => {
  const command: SignCallCommand = { principal, chain: 'local', contract: '0x' + '11'.repeat(20), sender: '0x' + '22'.repeat(20), abi: { name: 'f', inputs: [] }, args: [] };
  const outcome = await v.signCall.execute(command);
  // A sign an approval rule holds answers the approval instead (nothing signed yet).
  if ('approval' in outcome) return outcome.approval.id;
  const result: SignResult = outcome;
  const submission: RecordSubmissionCommand = { vaultId: principal.vaultId, submissionHash: result.submissionHash, transactionHash: '0x' + '33'.repeat(32) };
  return (await v.recordSubmission.execute(submission)).submissionHash;
};
// A client error's code is a typed union: a program branches on it, and a misspelt code does not compile.
const retryLater = (error: VaultError): boolean => {
  const code: VaultErrorCode | undefined = error.code;
  return code === 'RATE_LIMITED' || code === 'DATABASE_UNAVAILABLE' || code === 'KEYSTORE_UNAVAILABLE';
};
// A VaultClient is what the ethers signer takes: a vault wallet as an ethers Signer.
const signerOf = (client: VaultClient): VaultSigner => new VaultSigner(client, '0x' + '11'.repeat(20));
// The shipped ABIs are typed as literals: a typo in a function name is a compile error, not undefined.
const mintItem = SignableMint.abi.find((item) => item.type === 'function' && item.name === 'mint');
const bytecode: `0x${string}` = SignableMint.bytecode;
// The Azure store's options as declared (the SDK is installed in this project, so its credential type resolves).
const azureOptions: AzureKeyVaultKeyStoreOptions = { vaultUrl: 'https://example.vault.azure.net', keyType: 'EC-HSM', onRetry: (reason) => void reason };
const azureStore = (): KeyStore => azureKeyVaultKeyStore(azureOptions);
// The options type names what the factory takes, without @google-cloud/kms installed (the declarations ship).
const gcpOptions: GcpKmsKeyStoreOptions = { keyRing: 'projects/p/locations/global/keyRings/r', protectionLevel: 'HSM' };
const fixture = (): Promise<KeyStoreFixture> => Promise.resolve({ store, cleanup: async () => undefined });
export const used = [
  vaultRouter, routerOptions, vault, code, fixture, describeKeyStoreContract, DomainError, VaultOptionsError,
  pkcs11KeyStore, awsKmsKeyStore, gcpKmsKeyStore, gcpOptions, vaultTransitKeyStore, sqlitePersistence, postgresPersistence, VaultClient, VaultError,
  mintItem, bytecode, signed, retryLater, signerOf, azureStore,
];
