import { DomainError, ErrorCode, invalidArgument } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.port.js';
import type { SignatureLog, SignatureRecord } from '../../ports/signature-log.port.js';

const HASH = /^0x[0-9a-fA-F]{64}$/;

export function parseHash(raw: unknown, field: string): string {
  if (typeof raw !== 'string' || !HASH.test(raw)) throw invalidArgument(`${field}: must be 0x-prefixed 32-byte hex`);
  return raw.toLowerCase();
}

/** The transaction that carried a signature, for the vault that issued it. */
export interface RecordSubmissionCommand {
  readonly vaultId: string;
  /** The `submissionHash` Sign returned (0x-prefixed 32-byte hex). */
  readonly submissionHash: string;
  readonly transactionHash: string;
}

/** Records the transaction that carried a signature; sending the same pair again is harmless. */
export class RecordSubmission {
  constructor(
    private readonly signatureLog: SignatureLog,
    private readonly clock: Clock,
  ) {}

  async execute(command: RecordSubmissionCommand): Promise<SignatureRecord> {
    const submissionHash = parseHash(command.submissionHash, 'submissionHash');
    const transactionHash = parseHash(command.transactionHash, 'transactionHash');
    const result = await this.signatureLog.attachTransaction(command.vaultId, submissionHash, transactionHash, this.clock.now());
    if (result === 'missing') throw notFound(submissionHash);
    if (result === 'conflict') {
      throw new DomainError(ErrorCode.CONFLICT, 'submissionHash: a different transaction is already recorded for this submission');
    }
    return (await this.signatureLog.find(command.vaultId, submissionHash))!;
  }
}

export const notFound = (hash: string) =>
  new DomainError(ErrorCode.SUBMISSION_NOT_FOUND, `submission ${hash} not found in this vault`);
