/**
 * Requests allowed to wait for a pooled connection, per connection, by default (VAULT_DATABASE_MAX_WAITING
 * unset). A connection serves a sign in a few milliseconds, so four waiting per connection wait a few
 * round trips each; a much longer queue only turns an overload into connect timeouts for everyone in it.
 * Apart from postgres.database.ts so the configuration can name it without loading the optional pg driver.
 */
export const DEFAULT_WAITING_PER_CONNECTION = 4;
