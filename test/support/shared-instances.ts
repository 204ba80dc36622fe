import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FakeKms } from './fake-kms.server.js';

/**
 * The environment of one instance of several on one PostgreSQL database, with keys in one shared store
 * (AWS KMS, through the tests' KMS-compatible server): its own fresh data directory (pushed on `dirs`, for
 * the caller to remove), the shared database and key store.
 */
export async function sharedInstanceEnv(databaseUrl: string, kms: FakeKms, dirs: string[], prefix = 'wallet-vault-pg-instance-'): Promise<Record<string, string>> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  dirs.push(dir);
  return {
    VAULT_DATA_DIR: dir,
    VAULT_DATABASE_URL: databaseUrl,
    VAULT_DATABASE_POOL_SIZE: '4',
    VAULT_KEYSTORE: 'aws-kms',
    VAULT_KMS_ENDPOINT: kms.url,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: kms.accessKeyId,
    AWS_SECRET_ACCESS_KEY: kms.secretAccessKey,
  };
}
