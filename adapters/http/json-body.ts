import { DomainError, ErrorCode } from '../../src/domain/errors.js';
import { checkJsonText, DEFAULT_BODY_LIMITS, type JsonTextLimits } from './json-nesting.js';

/**
 * Parses a request body as JSON with the service's own messages; the one parse every route uses (Express
 * and the sign handler). Depth and width are bounded before JSON.parse (see json-nesting.ts), so nothing
 * downstream is handed a value deeper or wider than `limits`.
 */
export function parseJsonBody(bytes: Buffer, contentType: string | undefined, limits: JsonTextLimits = DEFAULT_BODY_LIMITS): unknown {
  if (bytes.length === 0) throw new DomainError(ErrorCode.MALFORMED_JSON, 'request body is required (a JSON object)');
  // The usual value skips the regular expression.
  if (contentType !== undefined && contentType !== 'application/json' && !/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw new DomainError(ErrorCode.MALFORMED_JSON, `Content-Type must be application/json (got ${JSON.stringify(contentType)})`);
  }
  const text = bytes.toString('utf8');
  checkJsonText(text, limits);
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError(ErrorCode.MALFORMED_JSON, 'request body is not valid JSON');
  }
}

export const tooLarge = (limit: number) =>
  new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, `request body is larger than the limit of ${limit} bytes`);
