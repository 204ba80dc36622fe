import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Wallet } from 'ethers';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { createVault, type Vault } from '../../lib/index.js';
import { postgresPersistence } from '../../lib/persistence/postgres.js';
import { sqlitePersistence } from '../../lib/persistence/sqlite.js';
import { localFileKeyStore } from '../../lib/keystores/local-file.js';
import { MovableClock } from '../support/movable-clock.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import type { ProposalView } from '../../src/application/governance/governance.use-case.js';
import type { Principal } from '../../src/application/access/principal.js';
import type { Approval } from '../../src/domain/approval.js';
import { decisionTypedData } from '../../src/domain/signed-decisions.js';

export type Dialect = 'sqlite' | 'postgres';

/** One database and raw SQL on it: what an attacker with the database URL has. */
export interface Store {
  readonly dialect: Dialect;
  /** Opens a vault on it (pins from the "configuration"); each vault is an instance. */
  open(options?: { pins?: ReadonlyMap<string, string>; clock?: MovableClock; webhooks?: boolean; publicUrl?: string }): Promise<Vault>;
  sql(text: string, params?: unknown[]): Promise<unknown[]>;
  close(): Promise<void>;
}

export async function openStore(dialect: Dialect): Promise<Store> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wv-governance-'));
  const vaults: Vault[] = [];
  let database: TestDatabase | undefined;
  let client: pg.Client | undefined;
  let file: Database.Database | undefined;
  if (dialect === 'postgres') {
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  }
  const masterKeyHex = 'ab'.repeat(32);
  const store: Store = {
    dialect,
    async open(o = {}) {
      const persistence =
        dialect === 'postgres' ? await postgresPersistence({ connectionString: database!.url, poolSize: 3 }) : await sqlitePersistence({ path: path.join(dir, 'vault.db') });
      const vault = await createVault({
        persistence,
        keyStores: [localFileKeyStore({ keysDir: path.join(dir, 'keys'), masterKeyHex })],
        version: 'test',
        clock: o.clock ?? new MovableClock(),
        // Webhooks: this instance delivers (its jobs run, polling every 20 ms).
        jobs: o.webhooks === true ? {} : false,
        ...(o.webhooks ? { webhooks: { pollIntervalMs: 20 } } : {}),
        ...(o.pins ? { governancePins: o.pins } : {}),
        // VAULT_PUBLIC_URL: the approvers' console's origin and relying party.
        ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
      });
      vaults.push(vault);
      return vault;
    },
    async sql(text, params = []) {
      if (client) return (await client.query(text, params)).rows;
      file ??= new Database(path.join(dir, 'vault.db'));
      // $n as PostgreSQL numbers them, as positional ? in order (a number may repeat).
      const ordered: unknown[] = [];
      const statement = file.prepare(text.replace(/\$(\d+)/g, (_, n: string) => (ordered.push(params[Number(n) - 1]), '?')));
      return statement.reader ? statement.all(...ordered) : (statement.run(...ordered), []);
    },
    async close() {
      for (const v of vaults) await v.close().catch(() => undefined);
      await client?.end();
      file?.close();
      await database?.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return store;
}

/** An approver's key: ethers or viem, as the issue asks both to be accepted. */
export interface Approver {
  readonly address: string;
  sign(typedData: ProposalView['typedData'] | ProposalView['rejectTypedData']): Promise<string>;
}

export function ethersApprover(): Approver {
  const wallet = Wallet.createRandom();
  return { address: wallet.address, sign: (t) => wallet.signTypedData(t.domain, { ...t.types } as never, t.message) };
}

export function viemApprover(): Approver {
  const account = privateKeyToAccount(generatePrivateKey());
  return { address: account.address, sign: (t) => account.signTypedData({ domain: t.domain, types: t.types, primaryType: t.primaryType, message: t.message } as never) };
}

export const DOCUMENT = { version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }], limits: [] };
export const WIDER = { version: 2, rules: [{ id: 'messages', effect: 'allow', kinds: ['message'] }, { id: 'typed', effect: 'allow', kinds: ['typed-data'] }], limits: [] };

/** A message a hold rule holds: its approval (nothing signed). */
export async function heldMessage(vault: Vault, principal: Principal, wallet: string, message: string): Promise<Approval> {
  const outcome = await vault.signMessage.execute({ principal, address: wallet, message });
  if (!('approval' in outcome)) throw new Error('expected the message to be held');
  return outcome.approval as Approval;
}

/** `who`'s EIP-712 Decision to approve `approval`: a held sign's signed vote. */
export function approveDecision(who: { signTypedData: Wallet['signTypedData'] }, approval: Approval): Promise<string> {
  const t = decisionTypedData(approval.vaultId, approval.id, approval.requestHash, 'approve');
  return who.signTypedData(t.domain, { ...t.types } as never, t.message);
}
