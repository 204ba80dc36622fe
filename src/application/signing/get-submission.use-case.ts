import type { SignatureLog, SignatureRecord } from '../../ports/signature-log.port.js';
import { notFound, parseHash } from './record-submission.use-case.js';

export class GetSubmission {
  constructor(private readonly signatureLog: SignatureLog) {}

  async execute(vaultId: string, rawHash: string): Promise<SignatureRecord> {
    const hash = parseHash(rawHash, 'submissionHash');
    const record = await this.signatureLog.find(vaultId, hash);
    if (!record) throw notFound(hash);
    return record;
  }
}
