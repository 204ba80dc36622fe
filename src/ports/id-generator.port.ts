/** Makes identifiers for new records. */
export interface IdGenerator {
  /** A new unique id (UUID, time-ordered v7 in production). */
  next(): string;
}
