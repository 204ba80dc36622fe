import { DomainError, ErrorCode, invalidArgument } from '../domain/errors.js';
import type { Clock } from '../ports/clock.port.js';
import type { SignatureLog, SignatureRecord } from '../ports/signature-log.port.js';

const HASH = /^0x[0-9a-fA-F]{64}$/;

export function parseHash(raw: unknown, field: string): string {
  if (typeof raw !== 'string' || !HASH.test(raw)) throw invalidArgument(`${field}: must be 0x-prefixed 32-byte hex`);
  return raw.toLowerCase();
}

/** Records the transaction that carried a signature; sending the same pair again is harmless. */
export class RecordSubmission {
  constructor(
    private readonly signatureLog: SignatureLog,
    private readonly clock: Clock,
  ) {}

  async execute(input: { vaultId: string; body: unknown }): Promise<SignatureRecord> {
    const body = input.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidArgument('body: must be a JSON object');
    const record = body as Record<string, unknown>;
    const submissionHash = parseHash(record.submissionHash, 'submissionHash');
    const transactionHash = parseHash(record.transactionHash, 'transactionHash');
    const result = await this.signatureLog.attachTransaction(input.vaultId, submissionHash, transactionHash, this.clock.now());
    if (result === 'missing') throw notFound(submissionHash);
    if (result === 'conflict') {
      throw new DomainError(ErrorCode.CONFLICT, 'submissionHash: a different transaction is already recorded for this submission');
    }
    return (await this.signatureLog.find(input.vaultId, submissionHash))!;
  }
}

export const notFound = (hash: string) =>
  new DomainError(ErrorCode.SUBMISSION_NOT_FOUND, `submission ${hash} not found in this vault`);
