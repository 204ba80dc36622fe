import { parseCidrs, parseRoles } from '../../../src/domain/api-key-access.js';
import type { ApiKeyRecord, Vault } from '../../../src/domain/vault.js';
import type { Wallet } from '../../../src/domain/wallet.js';
import type { AuditRecord } from '../../../src/ports/audit-log.port.js';
import type { SignatureRecord } from '../../../src/ports/signature-log.port.js';
import type { IdempotencyRecord } from '../../../src/ports/wallet-repository.port.js';

// The SQL databases share one schema shape; only the type of an instant differs (SQLite: milliseconds,
// PostgreSQL: timestamptz read as Date). Rows are mapped to the domain by the tables below, in one place.

/** `($1, $2), ($3, $4)` for a multi-row INSERT of `rows` rows of `width` values each, numbered from `first`. */
export const rowPlaceholders = (rows: number, width: number, first = 1): string =>
  Array.from({ length: rows }, (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + first}`).join(', ')})`).join(', ');

/**
 * The audit records found by subject (an approval's or a proposal's, the console's "records behind it"):
 * all but the signing records, whose subjects are submission or transaction hashes and which make most
 * of the log. The index on (vault_id, subject, seq) is partial on this clause, so a sign's insert does not
 * write it: a random 66-character key per sign cost about a tenth of a sign's CPU (docs/benchmarks.md).
 * A query uses that index only when its WHERE carries this clause as written here.
 */
export const FOUND_BY_SUBJECT = "action NOT IN ('signature.issued', 'sign.message', 'sign.typed-data', 'sign.transaction', 'sign.authorization')";

/** Reads an instant as the database stores it. */
export type InstantDecoder<T> = (value: T) => Date;
export const fromMillis: InstantDecoder<number> = (ms) => new Date(ms);
export const asDate: InstantDecoder<Date> = (d) => d;

/**
 * How a field reads its column: as stored (AS_IS), as an instant (INSTANT, by the database's decoder),
 * as a number (NUMBER: PostgreSQL returns bigint and count as text), or through a function. A column
 * named otherwise than the field in snake_case is given with it: `['approver_group', AS_IS]`.
 */
export const AS_IS = 0;
export const INSTANT = 1;
export const NUMBER = 2;
type Read = typeof AS_IS | typeof INSTANT | typeof NUMBER | ((value: never) => unknown);
type Field = Read | readonly [column: string, read: Read];

/**
 * The columns of a table and its rows as the domain reads them, one field per column, in order: every
 * field of `T` is listed (the compiler checks it), and null stays null whatever the field's read.
 */
export class Table<T> {
  /** The column list. */
  readonly columns: string;
  /** `SELECT columns FROM name`, for a WHERE to follow. */
  readonly select: string;
  /** `INSERT INTO name (columns) VALUES ($1, ...)`, its parameters `values(record)`. */
  readonly insert: string;
  private readonly fields: readonly (readonly [field: string, column: string, read: Read])[];

  constructor(name: string, fields: { readonly [K in keyof T]-?: Field }) {
    this.fields = Object.entries<Field>(fields).map(([field, f]) =>
      typeof f === 'object' ? [field, f[0], f[1]] : [field, field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), f],
    );
    this.columns = this.fields.map(([, column]) => column).join(', ');
    this.select = `SELECT ${this.columns} FROM ${name}`;
    this.insert = `INSERT INTO ${name} (${this.columns}) VALUES ${rowPlaceholders(1, this.fields.length)}`;
  }

  /** `columns` qualified by a table alias (`w.id, w.name`). */
  of(alias: string): string {
    return this.fields.map(([, column]) => `${alias}.${column}`).join(', ');
  }

  /** A row as the domain reads it (a function of its own: passed as it is to map rows). */
  readonly read = (row: object, at: InstantDecoder<never>): T => {
    const value: Record<string, unknown> = {};
    for (const [field, column, read] of this.fields) {
      const v = (row as Record<string, unknown>)[column];
      value[field] = v === null || read === AS_IS ? v : read === INSTANT ? at(v as never) : read === NUMBER ? Number(v) : read(v as never);
    }
    return value as T;
  };

  /** A record's fields in column order: the parameters of `insert`. */
  values(record: T): unknown[] {
    return this.fields.map(([field]) => (record as Record<string, unknown>)[field]);
  }
}

export const WALLETS = new Table<Wallet>('wallets', {
  id: AS_IS, accountId: AS_IS, vaultId: AS_IS, name: AS_IS, address: AS_IS, keyStore: AS_IS, keyRef: AS_IS, binding: AS_IS,
  derivationPath: AS_IS, exported: INSTANT, created: INSTANT, updated: INSTANT, expires: INSTANT, version: AS_IS,
});
export const VAULTS = new Table<Vault>('vaults', { id: AS_IS, accountId: AS_IS, name: AS_IS, created: INSTANT });
export const SIGNATURES = new Table<SignatureRecord>('signatures', {
  submissionHash: AS_IS, vaultId: AS_IS, walletId: AS_IS, walletAddress: AS_IS, chain: AS_IS, contract: AS_IS, sender: AS_IS, selector: AS_IS,
  created: INSTANT, transactionHash: AS_IS, submitted: INSTANT,
});
/**
 * The condition that finds the signature whose submission hash is the parameter `hash` (`$2`, `?`): on
 * SQLite through the index on the hash's first 8 hex digits (signatures_by_hash, migration 10: the rows that
 * share the prefix, almost always one), then the whole hash compared; PostgreSQL keeps its primary key on the
 * whole hash and plans by that.
 */
export const signatureHashIs = (hash: string): string => `substr(submission_hash, 3, 8) = substr(${hash}, 3, 8) AND submission_hash = ${hash}`;
/** SIGNATURES.values, spelled out: it runs on every sign, and a keyed read per column costs it ~70 ns more. */
export const signatureValues = (e: SignatureRecord): unknown[] => [
  e.submissionHash, e.vaultId, e.walletId, e.walletAddress, e.chain, e.contract, e.sender, e.selector, e.created, e.transactionHash, e.submitted,
];
export const IDEMPOTENCY = new Table<IdempotencyRecord>('idempotency_records', { vaultId: AS_IS, key: AS_IS, requestHash: AS_IS, response: AS_IS, created: INSTANT, expires: INSTANT });
export const AUDIT = new Table<AuditRecord>('audit_log', {
  seq: NUMBER, at: INSTANT, actor: AS_IS, vaultId: AS_IS, subject: AS_IS, action: AS_IS,
  // JSON text (SQLite) or jsonb already parsed (PostgreSQL).
  details: (d: AuditRecord['details'] | string) => (typeof d === 'string' ? JSON.parse(d) : d),
  prevHash: AS_IS, hash: AS_IS,
});

/** The record's optional fields, each a column that reads null when the key has none. */
const OPTIONAL_KEY_FIELDS = ['group', 'approverAddress', 'label', 'expires', 'replacedBy', 'overlapEnds', 'replaces', 'firstUsed'] as const;
type KeyRow = Omit<ApiKeyRecord, (typeof OPTIONAL_KEY_FIELDS)[number]> & { [K in (typeof OPTIONAL_KEY_FIELDS)[number]]-?: NonNullable<ApiKeyRecord[K]> | null };
const API_KEYS = new Table<KeyRow>('api_keys', {
  id: AS_IS, vaultId: AS_IS, secretHash: AS_IS, created: INSTANT, revoked: INSTANT,
  // Comma-separated roles (API_KEY_ROLES) and CIDR ranges (null: from anywhere).
  roles: parseRoles, allowCidrs: parseCidrs,
  // The approver group; null: none, and the record has no `group`.
  group: ['approver_group', AS_IS],
  // The approver's credential; null: none, and the record has no `approverAddress`.
  approverAddress: AS_IS,
  // The lifecycle (migration api-key-lifecycle); null: none, and the record lacks the field.
  label: AS_IS, expires: INSTANT, replacedBy: AS_IS, overlapEnds: INSTANT, replaces: AS_IS, firstUsed: INSTANT,
});
export const { select: SELECT_API_KEY, insert: INSERT_API_KEY } = API_KEYS;
/** A row as the record: a field whose column is null is left out (keys from before it compare equal to their records). */
export const toApiKey = (row: object, at: InstantDecoder<unknown>): ApiKeyRecord => {
  const read: Record<string, unknown> = API_KEYS.read(row, at);
  for (const field of OPTIONAL_KEY_FIELDS) if (read[field] === null) delete read[field];
  return read as unknown as ApiKeyRecord;
};
/** The parameters of INSERT_API_KEY for a record (roles and networks as apiKeyAccessColumns writes them). */
export const apiKeyValues = (key: ApiKeyRecord): unknown[] => {
  const [roles, allowCidrs, group, approverAddress] = apiKeyAccessColumns(key);
  return API_KEYS.values({
    ...key, roles: roles as never, allowCidrs: allowCidrs as never, group, approverAddress,
    label: key.label ?? null, expires: key.expires ?? null, replacedBy: key.replacedBy ?? null,
    overlapEnds: key.overlapEnds ?? null, replaces: key.replaces ?? null, firstUsed: key.firstUsed ?? null,
  });
};
export const apiKeyAccessColumns = (key: ApiKeyRecord): [string, string | null, string | null, string | null] => [
  key.roles.join(','),
  key.allowCidrs === null ? null : key.allowCidrs.map((c) => c.text).join(','),
  key.group ?? null,
  key.approverAddress ?? null,
];
