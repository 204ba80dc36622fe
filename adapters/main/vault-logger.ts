/** Where the vault writes its own lines (background jobs, warnings); pino fits, so does `console`. */
export interface VaultLogger {
  info(o: object, m?: string): void;
  warn(o: object, m?: string): void;
  error(o: object, m?: string): void;
  debug?(o: object, m?: string): void;
}
