import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignatureLog } from '../../src/ports/signature-log.port.js';
import { aSignatureRecord } from './fixtures.js';

export interface SignatureLogFixture {
  readonly log: SignatureLog;
  cleanup(): Promise<void>;
}

/** A submission hash starting with `prefix` (hex digits), the rest random, as keccak output looks. */
const hashStarting = (prefix: string) => `0x${prefix}${randomBytes(32).toString('hex').slice(prefix.length)}`;

const AT = new Date('2026-06-01T00:00:00Z');
const TX_A = `0x${'a'.repeat(64)}`;
const TX_B = `0x${'b'.repeat(64)}`;

/** What every signature log must do. Vault ids need not name stored vaults. */
export function describeSignatureLogContract(name: string, make: () => Promise<SignatureLogFixture>): void {
  describe(`SignatureLog contract: ${name}`, () => {
    let f: SignatureLogFixture;
    beforeAll(async () => {
      f = await make();
    });
    afterAll(async () => {
      await f?.cleanup();
    });

    it("finds a record by its vault and submission hash, and not through another vault's id", async () => {
      const record = aSignatureRecord(0, { vaultId: randomUUID(), submissionHash: hashStarting(''), created: AT });
      await f.log.record(record);
      expect(await f.log.find(record.vaultId, record.submissionHash)).toEqual(record);
      expect(await f.log.find(randomUUID(), record.submissionHash)).toBeNull();
      expect(await f.log.find(record.vaultId, hashStarting(''))).toBeNull();
    });

    it('tells apart records whose hashes share their first digits, for finding and for attaching', async () => {
      // Stores may index a short prefix of the hash (the SQL stores index the first 8 hex digits).
      const vaultId = randomUUID();
      const prefix = randomBytes(6).toString('hex');
      const [first, second] = [hashStarting(prefix), hashStarting(prefix)].map((submissionHash) =>
        aSignatureRecord(0, { vaultId, submissionHash, created: AT }),
      );
      await Promise.all([f.log.record(first!), f.log.record(second!)]);
      expect(await f.log.find(vaultId, hashStarting(prefix))).toBeNull();
      expect(await f.log.attachTransaction(vaultId, second!.submissionHash, TX_B, AT)).toBe('attached');
      expect(await f.log.find(vaultId, first!.submissionHash)).toEqual(first);
      expect(await f.log.find(vaultId, second!.submissionHash)).toEqual({ ...second, transactionHash: TX_B, submitted: AT });
      expect(await f.log.attachTransaction(vaultId, first!.submissionHash, TX_A, AT)).toBe('attached');
      expect((await f.log.find(vaultId, first!.submissionHash))?.transactionHash).toBe(TX_A);
    });

    it('attaches a transaction once: the same again is unchanged, another a conflict, an unknown record missing', async () => {
      const record = aSignatureRecord(0, { vaultId: randomUUID(), submissionHash: hashStarting(''), created: AT });
      await f.log.record(record);
      expect(await f.log.attachTransaction(record.vaultId, record.submissionHash, TX_A, AT)).toBe('attached');
      expect(await f.log.attachTransaction(record.vaultId, record.submissionHash, TX_A, new Date(AT.getTime() + 1000))).toBe('unchanged');
      expect(await f.log.attachTransaction(record.vaultId, record.submissionHash, TX_B, AT)).toBe('conflict');
      expect(await f.log.attachTransaction(randomUUID(), record.submissionHash, TX_A, AT)).toBe('missing');
      expect(await f.log.find(record.vaultId, record.submissionHash)).toEqual({ ...record, transactionHash: TX_A, submitted: AT });
    });
  });
}
