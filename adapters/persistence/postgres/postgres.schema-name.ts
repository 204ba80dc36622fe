/**
 * A schema name the vault accepts (the `schema` option, VAULT_DATABASE_SCHEMA): a plain lower-case SQL
 * identifier, so it means the same quoted or not (`vault.wallets` in psql finds the tables), needs no
 * escaping in the connection's `-c search_path=` option, and is not one PostgreSQL reserves (`pg_...`).
 * Kept free of the pg driver: the configuration checks it without loading the optional package.
 */
export const isSchemaName = (name: string): boolean => /^[a-z_][a-z0-9_]{0,62}$/.test(name) && !name.startsWith('pg_');

export const SCHEMA_NAME_RULE = 'must be a plain lower-case identifier (a-z, 0-9, _; not starting with a digit or pg_; at most 63 characters)';
