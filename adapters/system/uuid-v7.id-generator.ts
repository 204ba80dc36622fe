import { v7 } from 'uuid';
import type { IdGenerator } from '../../src/ports/id-generator.port.js';

/** Time-ordered ids keep inserts at the end of the primary-key index. */
export class UuidV7IdGenerator implements IdGenerator {
  next(): string {
    return v7();
  }
}
