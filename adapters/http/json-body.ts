import { DomainError, ErrorCode } from '../../src/domain/errors.js';

/** Parses a request body as JSON with the service's own messages; shared by Express and the sign fast path. */
export function parseJsonBody(bytes: Buffer, contentType: string | undefined): unknown {
  if (bytes.length === 0) throw new DomainError(ErrorCode.MALFORMED_JSON, 'request body is required (a JSON object)');
  if (contentType !== undefined && !/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw new DomainError(ErrorCode.MALFORMED_JSON, `Content-Type must be application/json (got ${JSON.stringify(contentType)})`);
  }
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new DomainError(ErrorCode.MALFORMED_JSON, 'request body is not valid JSON');
  }
}

export const tooLarge = (limit: number) =>
  new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, `request body is larger than the limit of ${limit} bytes`);
